package dev.sendlog.service.log;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Events to append (each at the seq its writer expects) and, for a provider acceptance, the charge that goes with it;
 * for an event that sets a deadline before its publication's next check, the wake that brings the check forward. The
 * future yields the events that won their seq, or fails when nothing was written.
 */
public record AppendRequest(
        List<NewEvent> events, Charge charge, PublicationWake wake, CompletableFuture<Set<AppendKey>> result)
        implements GroupCommit.Item {

    public AppendRequest(List<NewEvent> events, Charge charge, PublicationWake wake) {
        this(List.copyOf(events), charge, wake, new CompletableFuture<>());
    }

    @Override
    public int size() {
        return events.size();
    }

    /** Two appends to one message never share a transaction (the second would only lose its seq). */
    @Override
    public Collection<String> exclusiveKeys() {
        return events.stream().map(e -> e.messageId().toString()).distinct().toList();
    }

    @Override
    public void fail(String reason) {
        result.completeExceptionally(new AppendFailedException(reason, null));
    }
}
