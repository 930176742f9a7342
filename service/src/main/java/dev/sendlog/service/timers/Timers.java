package dev.sendlog.service.timers;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import dev.sendlog.events.Dead;
import dev.sendlog.events.Expired;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.OutcomeUnknown;
import dev.sendlog.events.Published;
import dev.sendlog.events.Redriven;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.log.Actors;
import dev.sendlog.projections.Decisions;
import dev.sendlog.projections.InvalidTransitionException;
import dev.sendlog.projections.Limits;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.projections.MessageState;
import dev.sendlog.projections.Phase;
import dev.sendlog.projections.QuerySchedule;
import dev.sendlog.service.log.AppendKey;
import dev.sendlog.service.log.EventAppender;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.NewEvent;
import dev.sendlog.service.log.Publications;
import dev.sendlog.service.metrics.Metrics;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires the deadlines of messages in flight, working from the publications: every message put on the send stream is
 * watched by its publication from the publication's confirm deadline on, until it moved on to newer work (a REDRIVEN,
 * which the poller publishes again) or reached a final status. At a publication's check, each message it still watches
 * is folded from the log; a deadline passed with nothing newer appended gets REDRIVEN, DEAD or OUTCOME_UNKNOWN (or
 * EXPIRED, for a message waiting past its validity: checked at every deadline and at the validity's end) at the
 * next seq (losing that seq to another writer means something happened: it is looked at again shortly), and the
 * publication's next check is the earliest deadline left among its messages (confirm, claim, retry, or the end of the
 * reconciliation window), or none. On a gateway that answers status queries (issue 32) a message without a final
 * receipt is also checked at its {@link QuerySchedule} points, and handed to the reconciler ({@link StatusQueries}) at each; it is
 * UNKNOWN only after the schedule's grace.
 *
 * <p>No per-message row is updated for this: a publication row per batch, checked once or twice, is what the timers
 * write. Every process with a poller checks; a due publication is taken by moving its check past a lease, so two
 * processes do not check it at once, and a process that dies mid-check leaves it due again after the lease.
 */
public final class Timers {
    private static final Logger LOG = LoggerFactory.getLogger(Timers.class);
    private static final String ACTOR = "timer";
    /** Publications taken per round: each holds up to a poller page of messages, all read in one query. */
    private static final int PUBLICATIONS_PER_ROUND = 4;

    private static final Duration TAKE_LEASE = Duration.ofSeconds(60);
    private static final Duration LOST_RACE_RECHECK = Duration.ofSeconds(1);

    private final Publications publications;
    private final MessageReader reader;
    private final EventAppender appender;
    private final Actors actors;
    private final Limits limits;
    private final Duration reconcileWindow;
    private final InstantSource clock;
    private final Timer roundTimer;
    private final Counter redriven;
    private final Counter dead;
    private final Counter unknown;
    private final Counter expired;
    private final Counter checked;
    private final DueScan dueScan;
    /** Null: no gateway answers status queries, and a message without a final receipt is UNKNOWN at its window's end. */
    private final StatusQueries reconciler;

    private final QuerySchedule schedule;

    public Timers(
            Publications publications,
            MessageReader reader,
            EventAppender appender,
            Actors actors,
            Limits limits,
            Duration reconcileWindow,
            InstantSource clock,
            MetricRegistry metrics) {
        this(publications, reader, appender, actors, limits, reconcileWindow, clock, metrics, null, null);
    }

    /**
     * Timers that also bring messages without a final receipt to {@code reconciler} when {@code schedule} says (issue
     * 32), for the gateways it asks; on those gateways a message is UNKNOWN only at the end of the schedule's grace.
     */
    public Timers(
            Publications publications,
            MessageReader reader,
            EventAppender appender,
            Actors actors,
            Limits limits,
            Duration reconcileWindow,
            InstantSource clock,
            MetricRegistry metrics,
            StatusQueries reconciler,
            QuerySchedule schedule) {
        if ((reconciler == null) != (schedule == null)) {
            throw new IllegalArgumentException("a reconciler comes with its schedule");
        }
        this.reconciler = reconciler;
        this.schedule = schedule;
        this.publications = publications;
        this.reader = reader;
        this.appender = appender;
        this.actors = actors;
        this.limits = limits;
        this.reconcileWindow = reconcileWindow;
        this.clock = clock;
        this.roundTimer = Metrics.timer(metrics, "timers.round");
        this.redriven = metrics.counter("timers.redriven");
        this.dead = metrics.counter("messages.dead");
        this.unknown = metrics.counter("messages.unknown");
        this.expired = metrics.counter("messages.expired");
        this.checked = metrics.counter("timers.publications.checked");
        this.dueScan = new DueScan(reader, limits, metrics);
    }

    /** Checks every publication due now, and brings every scheduled message due now; returns the publications' events. */
    public int fire() {
        int appended = 0;
        Round r;
        do {
            r = round();
            appended += r.appended();
        } while (r.full());
        while (dueScan.round(clock.instant())) {
            // more scheduled messages are due
        }
        return appended;
    }

    /**
     * Checks some of the publications due now and some of the scheduled messages due now (issue 26: their own table,
     * see {@link DueScan}); true when more of either may be waiting.
     */
    public boolean fireSome() {
        boolean more = round().full();
        return dueScan.round(clock.instant()) || more;
    }

    private record Round(int appended, boolean full) {}

    private Round round() {
        Instant now = clock.instant();
        try (Timer.Context ignored = roundTimer.time()) {
            List<Publications.Publication> due = publications.takeDue(now, PUBLICATIONS_PER_ROUND, TAKE_LEASE, actors);
            if (due.isEmpty()) {
                return new Round(0, false);
            }
            Set<UUID> ids = new LinkedHashSet<>();
            due.forEach(p -> ids.addAll(p.messageIds()));
            Map<UUID, MessageDetails> found = reader.findMany(ids);
            List<NewEvent> events = new ArrayList<>();
            Map<Long, Instant> next = new HashMap<>();
            Map<AppendKey, Long> publicationOf = new HashMap<>();
            for (Publications.Publication p : due) {
                Instant nextCheck = null;
                for (int i = 0; i < p.messageIds().size(); i++) {
                    MessageDetails d = found.get(p.messageIds().get(i));
                    if (d == null) {
                        LOG.error(
                                "publication names a message that does not exist publication={} message_id={}",
                                p.id(),
                                p.messageIds().get(i));
                        continue;
                    }
                    Check c = check(p, i, d, now);
                    if (c.event() != null
                            && !publicationOf.containsKey(c.event().key())) {
                        // Two publications due together may watch the same work: one event for it, not two.
                        events.add(c.event());
                        publicationOf.put(c.event().key(), p.id());
                    }
                    nextCheck = earliest(nextCheck, c.nextCheck());
                }
                next.put(p.id(), nextCheck);
            }
            Set<AppendKey> won = events.isEmpty() ? Set.of() : appender.append(events, null);
            for (NewEvent e : events) {
                if (won.contains(e.key())) {
                    count(e.event(), e.messageId());
                } else {
                    // Something else happened to the message at that seq: look again shortly.
                    Long p = publicationOf.get(e.key());
                    next.put(p, earliest(next.get(p), now.plus(LOST_RACE_RECHECK)));
                }
            }
            publications.setChecks(next, now, TAKE_LEASE);
            checked.inc(due.size());
            return new Round(won.size(), due.size() == PUBLICATIONS_PER_ROUND);
        }
    }

    /** What one publication's check does for one of its messages: an event to append, and when to look again. */
    private record Check(NewEvent event, Instant nextCheck) {
        static final Check DONE = new Check(null, null);
    }

    private Check check(Publications.Publication p, int i, MessageDetails d, Instant now) {
        int workSeq = p.seqs().get(i);
        MessageState s = d.state();
        if (s.phase().isFinal()) {
            return Check.DONE;
        }
        if (s.workSeq() != workSeq
                && !(waitingForReceipt(s)
                        && Decisions.lateAcceptanceWork(d.events()).orElse(0) == workSeq)) {
            // Moved on to newer work, watched by its own publication. Unless the provider took this publication's claim
            // after the message had been re-driven (an acceptance recorded late, which woke this check): that newer
            // work is no longer owed and is never published, so this publication keeps watching the message's
            // receipt.
            return Check.DONE;
        }
        try {
            boolean viaPublication = false;
            if (s.phase() == Phase.PENDING && s.seq() == workSeq) {
                // Published by this publication and nothing since: the job waits on the stream until its confirm
                // deadline.
                s = MessageFold.evolve(
                        s,
                        new StoredEvent(
                                s.messageId(),
                                workSeq + 1,
                                p.publishedAt(),
                                p.actor(),
                                new Published(s.attempt(), p.epochs().get(i), p.confirmBy(), p.id())));
                viaPublication = true;
            }
            MessageState state = s;
            Instant validUntil = d.row().validUntil();
            boolean asked = asked(d);
            // A gateway that is asked: UNKNOWN only once the queries' grace after the window has ended without a final.
            Duration unknownAfter = asked ? schedule.window().plus(schedule.grace()) : reconcileWindow;
            Optional<MessageEvent> fire = Decisions.onDeadline(state, validUntil, now, limits)
                    .or(() -> Decisions.reconcile(state, now.minus(unknownAfter), reconcileWindow.toString())
                            .map(e -> e));
            if (asked && fire.isPresent() && fire.get() instanceof OutcomeUnknown && s.phase() == Phase.CLAIMED) {
                // The claim of the last attempt expired: the worker's call may or may not have reached the provider.
                // Ask (issue 32) for up to the schedule's grace before calling it UNKNOWN: taken, the acceptance is
                // recorded; never taken, the message is DEAD (the attempts are spent and the provider does not have
                // it).
                Instant askUntil = s.deadline().at().plus(schedule.grace());
                if (now.isBefore(askUntil)) {
                    reconciler.offerLostClaim(s.messageId(), s.gateway(), s.attempt());
                    return new Check(null, earliest(now.plus(schedule.retryEvery()), askUntil));
                }
            }
            if (fire.isEmpty()) {
                if (asked && waitingForReceipt(s) && schedule.due(s.sentAt(), now)) {
                    reconciler.offer(s.messageId(), s.gateway(), schedule.last(s.sentAt(), now));
                }
                return new Check(null, nextDeadline(s, validUntil, asked, now));
            }
            NewEvent event = new NewEvent(s.messageId(), s.nextSeq(), d.row().shard(), ACTOR, now, fire.get());
            if (viaPublication) {
                event = event.withPublication(p.id());
            }
            return new Check(event.deciding(s, d.row().tenant()), null);
        } catch (InvalidTransitionException e) {
            LOG.error("timer cannot fold message_id={}: {}", e.messageId(), e.getMessage());
            return Check.DONE;
        }
    }

    /**
     * When a watched message's state needs looking at next: its deadline, or the end of its reconciliation window; for a
     * message waiting for a worker, its validity's end when that comes first (it expires then, not at a later retry).
     */
    private Instant nextDeadline(MessageState s, Instant validUntil, boolean asked, Instant now) {
        if (s.deadline() != null) {
            return s.isWaiting()
                    ? earliest(s.deadline().at(), validUntil)
                    : s.deadline().at();
        }
        if (waitingForReceipt(s)) {
            return asked ? schedule.next(s.sentAt(), now) : s.sentAt().plus(reconcileWindow);
        }
        return null;
    }

    private static boolean waitingForReceipt(MessageState s) {
        return (s.phase() == Phase.SENT || s.phase() == Phase.IN_TRANSIT) && s.sentAt() != null;
    }

    /** Whether the message's gateway is asked about its messages (issue 32). */
    private boolean asked(MessageDetails d) {
        return reconciler != null && reconciler.asks(d.state().gateway());
    }

    private static Instant earliest(Instant a, Instant b) {
        if (a == null) {
            return b;
        }
        return b == null || a.isBefore(b) ? a : b;
    }

    private void count(MessageEvent e, UUID messageId) {
        switch (e) {
            case Redriven r -> redriven.inc();
            case Dead d -> {
                dead.inc();
                LOG.warn("message dead message_id={} reason=\"{}\"", messageId, d.reason());
            }
            case Expired x -> {
                expired.inc();
                LOG.info("message expired while it waited message_id={}", messageId);
            }
            case OutcomeUnknown u -> {
                unknown.inc();
                LOG.info("message outcome unknown message_id={} reason=\"{}\"", messageId, u.reason());
            }
            default -> {}
        }
    }
}
