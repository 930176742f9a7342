package dev.sendlog.service.reconcile;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.events.Dead;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.projections.Decisions;
import dev.sendlog.projections.MessageState;
import dev.sendlog.projections.Phase;
import dev.sendlog.service.log.Charge;
import dev.sendlog.service.log.EventAppender;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.NewEvent;
import dev.sendlog.service.log.Segments;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * What a status query says about the last attempt of a message whose claim expired at the attempt limit, written at the
 * expected seq so that a worker that was only slow, writing its own outcome meanwhile, and this never both win.
 */
final class LostClaims {
    private static final int MAX_DECISIONS = 5;

    private final MessageReader reader;
    private final EventAppender appender;
    private final InstantSource clock;
    private final String actor;
    private final Counter sent;

    LostClaims(
            MessageReader reader, EventAppender appender, InstantSource clock, String actor, MetricRegistry metrics) {
        this.reader = reader;
        this.appender = appender;
        this.clock = clock;
        this.actor = actor;
        this.sent = metrics.counter("messages.sent");
    }

    /** The provider has it: PROVIDER_ACCEPTED with its charge, once, as the worker would have recorded it. */
    boolean recordTaken(UUID messageId, String gateway, int attempt, String providerId) {
        for (int i = 0; i < MAX_DECISIONS; i++) {
            Optional<MessageDetails> found = reader.find(messageId);
            if (found.isEmpty() || !Decisions.shouldRecordAcceptance(found.get().state())) {
                return false;
            }
            MessageDetails d = found.get();
            Instant now = clock.instant();
            NewEvent event = new NewEvent(
                            messageId,
                            d.state().nextSeq(),
                            d.row().shard(),
                            actor,
                            now,
                            new ProviderAccepted(attempt, gateway, providerId))
                    .deciding(d.state(), d.row().tenant());
            if (!appender.append(
                            List.of(event),
                            new Charge(messageId, Segments.of(d.row().body()), now))
                    .isEmpty()) {
                sent.inc();
                return true;
            }
        }
        return false;
    }

    /** The provider never took it and the attempts are spent: DEAD, if the message is still in that expired claim. */
    boolean recordNeverTaken(UUID messageId, int attempt) {
        for (int i = 0; i < MAX_DECISIONS; i++) {
            Optional<MessageDetails> found = reader.find(messageId);
            if (found.isEmpty()) {
                return false;
            }
            MessageState s = found.get().state();
            if (s.phase() != Phase.CLAIMED || s.attempt() != attempt) {
                return false; // the worker wrote its outcome after all, or a timer moved it on
            }
            Instant now = clock.instant();
            Dead dead = new Dead(
                    attempt,
                    "attempt limit reached; the claim of attempt " + attempt
                            + " expired and the provider's status query says it never took the message");
            NewEvent withFinal = new NewEvent(
                            messageId, s.nextSeq(), found.get().row().shard(), actor, now, dead)
                    .deciding(s, found.get().row().tenant());
            if (appender.appendOne(withFinal)) {
                return true;
            }
        }
        return false;
    }
}
