package dev.sendlog.service.badinput;

/** A message the provider accepted: what a genuine receipt for it names. */
record Sent(String gateway, String messageId, String providerId) {}
