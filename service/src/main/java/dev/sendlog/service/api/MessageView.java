package dev.sendlog.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.sendlog.events.Lanes;
import dev.sendlog.events.Priority;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.Segments;
import java.time.Instant;
import java.util.UUID;

/**
 * A message as GET /v1/messages/{id} shows it, plus its tenant. {@code from}, the sender id it goes out with, is
 * there only when it has one (its own or its tenant's default); {@code validUntil}, when it must no longer leave
 * sendlog, only when it has a validity; {@code sendAt}, when the client asked it to be sent, only when it did (one
 * already past at acceptance was sent at once); {@code priority} only for a {@code high} message (normal is the
 * default, and every message before priorities existed is normal). {@code segments} is what it is charged in: its
 * GSM-7 or UCS-2 parts ({@link Segments}).
 */
public record MessageView(
        UUID id,
        String tenant,
        String status,
        String to,
        @JsonInclude(JsonInclude.Include.NON_NULL) String from,
        String reference,
        String gateway,
        String providerId,
        int attempts,
        int segments,
        Instant acceptedAt,
        Instant updatedAt,
        String lastError,
        @JsonInclude(JsonInclude.Include.NON_NULL) Instant validUntil,
        @JsonInclude(JsonInclude.Include.NON_NULL) Instant sendAt,
        @JsonInclude(JsonInclude.Include.NON_NULL) String priority) {

    /** @param lanes the configured lanes: a message's priority is the lane of the shard it was stored on */
    public static MessageView of(MessageDetails m, Lanes lanes) {
        Priority priority = lanes.priorityOf(m.row().shard());
        return new MessageView(
                m.row().id(),
                m.row().tenant(),
                m.state().status().name(),
                m.row().recipient(),
                m.row().sender(),
                m.row().reference(),
                m.state().gateway(),
                m.state().providerId(),
                m.state().claims(),
                Segments.of(m.row().body()),
                m.row().acceptedAt(),
                m.state().updatedAt(),
                m.state().lastError(),
                m.row().validUntil(),
                m.row().sendAt(),
                priority == Priority.HIGH ? priority.wireName() : null);
    }
}
