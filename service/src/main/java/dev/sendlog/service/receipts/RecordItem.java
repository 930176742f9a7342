package dev.sendlog.service.receipts;

import dev.sendlog.service.log.GroupCommit;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A decision waiting for its commit; the future says whether it took effect (an append can lose its seq). */
record RecordItem(CallbackDecision decision, CompletableFuture<Boolean> done) implements GroupCommit.Item {
    RecordItem(CallbackDecision decision) {
        this(decision, new CompletableFuture<>());
    }

    @Override
    public int size() {
        return 1;
    }

    @Override
    public Collection<String> exclusiveKeys() {
        if (decision instanceof CallbackDecision.AppendReceipt a) {
            return List.of(a.event().messageId().toString(), "inbox:" + decision.inboxId());
        }
        return List.of("inbox:" + decision.inboxId());
    }

    @Override
    public void fail(String reason) {
        done.completeExceptionally(new IllegalStateException(reason));
    }
}
