package dev.sendlog.service.controls;

import dev.sendlog.events.Redriven;
import dev.sendlog.projections.Decisions;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.NewEvent;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;

/** What support staff may do to a message, recorded as events with the user as actor. */
public final class AdminActions {
    private final DSLContext dsl;
    private final EventStore events;
    private final MessageReader reader;
    private final InstantSource clock;

    public AdminActions(DSLContext dsl, EventStore events, MessageReader reader, InstantSource clock) {
        this.dsl = dsl;
        this.events = events;
        this.reader = reader;
        this.clock = clock;
    }

    /**
     * Appends REDRIVEN by {@code actor}: only for DEAD, UNKNOWN before send or RETRYING (409 otherwise, or when
     * another writer changed the message at the same moment). The poller picks it up like any new work.
     */
    public Redriven redrive(UUID id, String actor) {
        MessageDetails m = reader.find(id).orElseThrow(() -> ApiProblem.notFound("no message " + id));
        Optional<Redriven> redrive = Decisions.adminRedrive(m.state());
        if (redrive.isEmpty()) {
            throw ApiProblem.conflict(
                    "a message in status " + m.state().status()
                            + " cannot be re-driven; only DEAD, UNKNOWN before it was sent, or RETRYING",
                    List.of());
        }
        NewEvent event = new NewEvent(id, m.state().nextSeq(), m.row().shard(), actor, clock.instant(), redrive.get())
                .deciding(m.state(), m.row().tenant());
        try {
            dsl.transaction(cfg -> events.append(cfg.dsl(), List.of(event)));
        } catch (RuntimeException e) {
            if (EventStore.isSeqTaken(e)) {
                throw ApiProblem.conflict("the message changed while it was being re-driven; read it again", List.of());
            }
            throw e;
        }
        return redrive.get();
    }
}
