package dev.sendlog.service.api;

import java.util.List;

/** The 202 body of a batch: one result per message, in request order. */
public record BatchResponse(List<SubmitResponse> results) {}
