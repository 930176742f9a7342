package dev.sendlog.simulator;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** The JSON body of a callback; absent reference and error code are left out rather than sent as null. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"id", "reference", "status", "timestamp", "errorCode"})
record CallbackPayload(String id, String reference, String status, String timestamp, String errorCode) {}
