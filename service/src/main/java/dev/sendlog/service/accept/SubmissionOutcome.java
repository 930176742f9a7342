package dev.sendlog.service.accept;

import dev.sendlog.service.errors.FieldError;
import java.util.List;

/** How a submission ended. Only {@link Committed} may be answered with 202. */
public sealed interface SubmissionOutcome {
    /** The transaction holding every item committed (or the items were committed earlier, for replays). */
    record Committed(List<AcceptedItem> items) implements SubmissionOutcome {}

    /** An Idempotency-Key was used before with a different request; nothing of this submission was written. */
    record KeyConflict(List<FieldError> errors) implements SubmissionOutcome {}

    /** The database could not take the submission now (unreachable, no partition, overloaded). Nothing was written. */
    record Unavailable(String reason) implements SubmissionOutcome {}

    /** A bug or an unexpected database error; nothing was written. */
    record Failed(String reason, Throwable cause) implements SubmissionOutcome {}
}
