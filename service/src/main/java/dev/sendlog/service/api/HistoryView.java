package dev.sendlog.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.UUID;

/**
 * The whole history of a message, in order; and its status webhook deliveries, when its tenant's registration owed any
 * (absent otherwise, so a history without webhooks reads as it always did).
 */
public record HistoryView(
        UUID id,
        List<EventView> events,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<WebhookDeliveryView> webhooks) {
    public HistoryView(UUID id, List<EventView> events) {
        this(id, events, List.of());
    }
}
