package dev.sendlog.service.dispatch;

import dev.sendlog.projections.MessageState;
import dev.sendlog.projections.Phase;
import dev.sendlog.service.core.MessageRow;
import java.time.Duration;
import java.time.Instant;

/** One row of the status projection, folded from a message's events. */
public record StatusRow(MessageRow message, short shard, MessageState state, Instant dueAt) {

    /** The next moment a timer must look at the message: its deadline, or the end of its reconciliation window. */
    public static StatusRow of(MessageRow message, short shard, MessageState state, Duration reconcileWindow) {
        Instant due = null;
        if (state.deadline() != null) {
            due = state.deadline().at();
        } else if ((state.phase() == Phase.SENT || state.phase() == Phase.IN_TRANSIT) && state.sentAt() != null) {
            due = state.sentAt().plus(reconcileWindow);
        }
        return new StatusRow(message, shard, state, due);
    }
}
