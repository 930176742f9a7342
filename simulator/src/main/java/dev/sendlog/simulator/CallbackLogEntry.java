package dev.sendlog.simulator;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One line of {@code GET /v1/callbacks/log}: a callback the simulator decided to send. {@code reference} is the
 * submit's reference even when the callback itself leaves it out; {@code delivered} turns true once a receiver
 * acknowledged the callback with 2xx, and stays false while it is pending or after it was given up.
 */
@JsonPropertyOrder({"id", "reference", "status", "timestamp", "delivered"})
final class CallbackLogEntry {
    private final String id;
    private final String reference;
    private final String status;
    private final String timestamp;
    private volatile boolean delivered;

    CallbackLogEntry(String id, String reference, String status, String timestamp) {
        this.id = id;
        this.reference = reference;
        this.status = status;
        this.timestamp = timestamp;
    }

    @JsonProperty
    String id() {
        return id;
    }

    @JsonProperty
    String reference() {
        return reference;
    }

    @JsonProperty
    String status() {
        return status;
    }

    @JsonProperty
    String timestamp() {
        return timestamp;
    }

    @JsonProperty
    boolean delivered() {
        return delivered;
    }

    void markDelivered() {
        delivered = true;
    }
}
