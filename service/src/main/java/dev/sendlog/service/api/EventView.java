package dev.sendlog.service.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/** One event of a history as the API shows it. */
public record EventView(int seq, String type, Instant at, String actor, JsonNode data) {}
