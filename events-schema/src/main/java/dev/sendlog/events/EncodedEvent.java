package dev.sendlog.events;

/** A payload as it is stored: its type, the version of its shape, and the JSON text. */
public record EncodedEvent(EventType type, int version, String json) {}
