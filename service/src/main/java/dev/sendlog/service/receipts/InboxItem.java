package dev.sendlog.service.receipts;

import dev.sendlog.service.log.GroupCommit;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A callback to store in the inbox; the future yields its inbox row once committed (or the row that holds it already). */
record InboxItem(String gateway, byte[] body, Instant receivedAt, CompletableFuture<Inbox.Stored> id)
        implements GroupCommit.Item {
    InboxItem(String gateway, byte[] body, Instant receivedAt) {
        this(gateway, body, receivedAt, new CompletableFuture<>());
    }

    @Override
    public int size() {
        return 1;
    }

    @Override
    public Collection<String> exclusiveKeys() {
        return List.of();
    }

    @Override
    public void fail(String reason) {
        id.completeExceptionally(new IllegalStateException(reason));
    }
}
