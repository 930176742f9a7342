package dev.sendlog.service.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One request's messages, accepted all together or not at all. {@code batch} marks the batch endpoint,
 * whose items carry their own keys.
 */
public record Submission(String tenant, List<MessageDraft> drafts, boolean batch, CompletableFuture<SubmissionOutcome> outcome) {
    public Submission(String tenant, List<MessageDraft> drafts, boolean batch) {
        this(tenant, List.copyOf(drafts), batch, new CompletableFuture<>());
    }

    public int size() {
        return drafts.size();
    }
}
