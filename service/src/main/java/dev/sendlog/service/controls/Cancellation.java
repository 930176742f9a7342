package dev.sendlog.service.controls;

import dev.sendlog.events.Cancelled;
import dev.sendlog.projections.Decisions;
import dev.sendlog.projections.Phase;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.NewEvent;
import java.time.InstantSource;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import org.jooq.DSLContext;

/**
 * {@code POST /v1/messages/{id}/cancel} (API.md): appends CANCELLED with the expected seq while no worker holds the
 * message. A worker's claim expects the same seq, so of a cancel and a claim racing for one message exactly one row is
 * written: a cancel that loses reads again and finds the message SENDING (409); a claim that loses reads again, finds it
 * CANCELLED, drops its job and never calls the provider. A repeated cancel answers the cancelled message again.
 */
public final class Cancellation {
    /** Lost races in a row before giving up with a 409 (each one means another writer changed the message). */
    private static final int MAX_DECISIONS = 5;

    private final DSLContext dsl;
    private final EventStore events;
    private final MessageReader reader;
    private final InstantSource clock;

    public Cancellation(DSLContext dsl, EventStore events, MessageReader reader, InstantSource clock) {
        this.dsl = dsl;
        this.events = events;
        this.reader = reader;
        this.clock = clock;
    }

    /**
     * Cancels the message if {@code mayCancel} allows its tenant (404 otherwise, as for a missing one) and no worker
     * holds it (409 naming the status otherwise); returns it as it is after the cancel.
     */
    public MessageDetails cancel(UUID id, String actor, Predicate<String> mayCancel) {
        for (int i = 0; i < MAX_DECISIONS; i++) {
            MessageDetails m = reader.find(id)
                    .filter(d -> mayCancel.test(d.row().tenant()))
                    .orElseThrow(() -> ApiProblem.notFound("no message " + id));
            if (m.state().phase() == Phase.CANCELLED) {
                return m;
            }
            var cancel = Decisions.cancel(m.state());
            if (cancel.isEmpty()) {
                throw ApiProblem.conflict(
                        "the message is " + m.state().status()
                                + (m.state().isWaiting()
                                        ? " after a worker claimed it, which may have reached the provider"
                                        : "")
                                + ": only a message no worker has claimed yet (SCHEDULED or ACCEPTED) can be cancelled",
                        List.of());
            }
            Cancelled cancelled = cancel.get();
            NewEvent event = new NewEvent(id, m.state().nextSeq(), m.row().shard(), actor, clock.instant(), cancelled)
                    .deciding(m.state(), m.row().tenant());
            try {
                dsl.transaction(cfg -> events.append(cfg.dsl(), List.of(event)));
                return reader.find(id).orElseThrow();
            } catch (RuntimeException e) {
                if (!EventStore.isSeqTaken(e)) {
                    throw e;
                }
                // Another writer (a claim, a timer) took the seq: read what it wrote and decide again.
            }
        }
        throw ApiProblem.conflict("the message kept changing while it was being cancelled; read it again", List.of());
    }
}
