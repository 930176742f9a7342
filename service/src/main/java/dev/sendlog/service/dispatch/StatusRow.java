package dev.sendlog.service.dispatch;

import dev.sendlog.projections.MessageState;
import dev.sendlog.projections.Phase;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/** One row of the status projection, folded from a message's events: what search by status and the timers read. */
public record StatusRow(String tenant, short shard, MessageState state, Instant dueAt) {

    public UUID messageId() {
        return state.messageId();
    }

    /** The next moment a timer must look at the message: its deadline, or the end of its reconciliation window. */
    public static StatusRow of(String tenant, short shard, MessageState state, Duration reconcileWindow) {
        Instant due = null;
        if (state.deadline() != null) {
            due = state.deadline().at();
        } else if ((state.phase() == Phase.SENT || state.phase() == Phase.IN_TRANSIT) && state.sentAt() != null) {
            due = state.sentAt().plus(reconcileWindow);
        }
        return new StatusRow(tenant, shard, state, due);
    }
}
