package dev.sendlog.service.accept;

import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.faults.FaultPoint;
import dev.sendlog.service.faults.Faults;
import dev.sendlog.service.log.BoundedWait;
import dev.sendlog.service.log.GroupCommit;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * The accept path: a validated submission is committed (with group commit, or alone when it is off) and
 * only a committed submission comes back as accepted. Everything else becomes the error the client sees.
 */
public final class AcceptService {
    private static final int RETRY_AFTER_SECONDS = 1;

    private final AcceptWriter writer;
    private final GroupCommit<Submission> groupCommitter;
    private final long waitMs;
    private final Faults faults;
    private final SenderPolicy senders;
    private final Routes routes;

    /** @param groupCommitter null to write each submission in its own transaction on the caller's thread */
    public AcceptService(
            AcceptWriter writer,
            GroupCommit<Submission> groupCommitter,
            long waitMs,
            Faults faults,
            SenderPolicy senders,
            Routes routes) {
        this.writer = writer;
        this.groupCommitter = groupCommitter;
        this.waitMs = waitMs;
        this.faults = faults;
        this.senders = senders;
        this.routes = routes;
    }

    public List<AcceptedItem> submit(String tenant, List<MessageDraft> drafts, boolean batch) {
        Submission submission =
                new Submission(tenant, routes.apply(tenant, senders.apply(tenant, drafts, batch)), batch);
        if (groupCommitter == null) {
            writer.write(List.of(submission));
        } else if (!groupCommitter.offer(submission)) {
            throw ApiProblem.unavailable("the accept backlog is full; retry shortly", RETRY_AFTER_SECONDS);
        }
        SubmissionOutcome outcome;
        try {
            outcome = BoundedWait.get(submission.outcome(), Duration.ofMillis(waitMs));
        } catch (TimeoutException e) {
            // The write may still commit later; a retry with the same Idempotency-Key returns that message.
            throw ApiProblem.unavailable(
                    "the commit did not finish in " + waitMs + " ms; retry with the same Idempotency-Key",
                    RETRY_AFTER_SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiProblem.unavailable("interrupted while committing", RETRY_AFTER_SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("accept future failed", e.getCause());
        }
        return switch (outcome) {
            case SubmissionOutcome.Committed c -> {
                faults.at(FaultPoint.AFTER_ACCEPT_COMMIT);
                yield c.items();
            }
            case SubmissionOutcome.KeyConflict k ->
                throw ApiProblem.conflict(
                        "an Idempotency-Key was used before with a different request; nothing was accepted",
                        k.errors());
            case SubmissionOutcome.Unavailable u -> throw ApiProblem.unavailable(u.reason(), RETRY_AFTER_SECONDS);
            case SubmissionOutcome.Failed f ->
                throw new IllegalStateException("accept failed: " + f.reason(), f.cause());
        };
    }
}
