package dev.sendlog.simulator;

/** One delivery receipt as it will be sent; {@code errorCode} is set only on negative finals. */
record Receipt(String status, String timestamp, String errorCode) {}
