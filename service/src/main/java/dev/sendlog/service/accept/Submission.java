package dev.sendlog.service.accept;

import dev.sendlog.service.log.GroupCommit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One request's messages, accepted all together or not at all. {@code batch} marks the batch endpoint,
 * whose items carry their own keys.
 */
public record Submission(
        String tenant, List<MessageDraft> drafts, boolean batch, CompletableFuture<SubmissionOutcome> outcome)
        implements GroupCommit.Item {
    public Submission(String tenant, List<MessageDraft> drafts, boolean batch) {
        this(tenant, List.copyOf(drafts), batch, new CompletableFuture<>());
    }

    @Override
    public int size() {
        return drafts.size();
    }

    /** A transaction never holds two claims on one idempotency key. */
    @Override
    public Collection<String> exclusiveKeys() {
        List<String> keys = new ArrayList<>();
        for (MessageDraft d : drafts) {
            if (d.idempotencyKey() != null) {
                keys.add(tenant + "\u0000" + d.idempotencyKey());
            }
        }
        return keys;
    }

    @Override
    public void fail(String reason) {
        outcome.complete(new SubmissionOutcome.Unavailable(reason));
    }
}
