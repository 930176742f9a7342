package dev.sendlog.testkit;

/** A server the harness settled on, and why. */
record ChosenServer<E>(E endpoint, ServerSource source, String reason) {}
