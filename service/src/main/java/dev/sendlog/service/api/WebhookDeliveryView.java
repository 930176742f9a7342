package dev.sendlog.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;

/**
 * A status webhook delivery of a message, in its history ({@code GET /v1/messages/{id}/events}, issue 27): which event it
 * tells (its id and seq, and the status that event gave the message), whether it is OWED, DELIVERED or DEAD, and how many
 * attempts it took. Support and admin keys also see each attempt's outcome; a client key sees the state only.
 */
public record WebhookDeliveryView(
        String eventId,
        int seq,
        String status,
        String state,
        int attempts,
        @JsonInclude(JsonInclude.Include.NON_NULL) List<Attempt> attemptLog) {
    /** One attempt: when, the endpoint's HTTP status (null when it did not answer), and what happened. */
    public record Attempt(int attempt, Instant at, Integer httpStatus, String outcome) {}
}
