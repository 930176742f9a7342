package dev.sendlog.service.receipts;

import dev.sendlog.service.log.NewEvent;
import java.util.UUID;

/** What the callback worker decided for one inbox row. Each is recorded with the row's outcome in one transaction. */
public sealed interface CallbackDecision {
    long inboxId();

    /** Append the RECEIPT event (at the seq it expects). */
    record AppendReceipt(long inboxId, NewEvent event) implements CallbackDecision {}

    /** Park the raw input with the reason. */
    record Park(long inboxId, String gateway, ParkReason reason, UUID messageId) implements CallbackDecision {}

    /** The same receipt was recorded before: nothing changes, the outcome says so. */
    record Duplicate(long inboxId, UUID messageId) implements CallbackDecision {}
}
