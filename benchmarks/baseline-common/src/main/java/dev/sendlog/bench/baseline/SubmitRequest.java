package dev.sendlog.bench.baseline;

/** A message as a client submits it to a baseline: recipient and text. */
public record SubmitRequest(String to, String body) {}
