package dev.sendlog.service.queue;

import java.util.Map;

/** One job read from a stream: its entry id (to acknowledge) and its fields. */
public record StreamEntry(String id, Map<String, String> fields) {}
