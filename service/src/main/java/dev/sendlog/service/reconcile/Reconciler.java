package dev.sendlog.service.reconcile;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.RatioGauge;
import dev.sendlog.events.OutcomeUnknown;
import dev.sendlog.projections.MessageState;
import dev.sendlog.projections.Phase;
import dev.sendlog.service.log.EffectKeys;
import dev.sendlog.service.log.EventAppender;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.NewEvent;
import dev.sendlog.service.receipts.FinalsLearned;
import dev.sendlog.service.receipts.Vocabulary;
import dev.sendlog.service.send.provider.GatewayRate;
import dev.sendlog.service.send.provider.Provider;
import dev.sendlog.service.send.provider.StatusAnswer;
import dev.sendlog.service.timers.StatusQueries;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks providers about messages whose final receipt has not come (issue 32): its own job, with its own bounds, beside
 * the send workers. The timers decide when a message is due ({@link dev.sendlog.projections.QuerySchedule}, from the
 * publications they already check) and {@link #offer} it here; this component makes the status query on a virtual thread
 * of its own, at most {@code concurrency} queries at once and at most the gateway's {@code queriesPerSecond}, over
 * connections of its own (that rate is a bucket in Redis that every process's reconciler shares, apart from the
 * sends' one), and records the answer as a RECEIPT with source QUERY ({@link QueryAnswers}).
 *
 * <p>Nothing here is durable, on purpose: the schedule is. A query lost to a full queue, a failure or a restart is
 * asked again at the message's next point, and a message the provider still cannot place ends UNKNOWN, either at once
 * when its last query (at the end of the window) is answered without a final, or by the timers when the grace after
 * the window ends. A final receipt later still wins (invariant 7).
 *
 * <p>SMPP's {@code query_sm} is not built: SMPP gateways do not exist yet, and their issue owns it.
 */
public final class Reconciler implements Managed, StatusQueries {
    private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);

    /** Per gateway: its provider (answering status queries), vocabulary and query rate (shared by every process). */
    public record Gateway(Provider provider, Vocabulary vocabulary, GatewayRate rate) {}

    /**
     * How long one wait for a query's token may take before it is asked for again. The wait has no end of its own (a
     * message due for a query keeps its place); the bound only keeps Bucket4j's reservation of future tokens short.
     */
    private static final Duration RATE_WAIT = Duration.ofSeconds(10);

    private final Map<String, Gateway> gateways;
    private final MessageReader reader;
    private final EventAppender appender;
    private final QueryAnswers answers;
    private final Duration window;
    private final InstantSource clock;
    private final String actor;
    private final int queueCapacity;
    private final Semaphore calls;
    /**
     * Its reads and writes take one connection of the maintenance pool at a time, whatever the concurrency: the pools are
     * sized on paper (invariant 14), and recording an answer is a few milliseconds against a query's round trip.
     */
    private final Semaphore database = new Semaphore(1);

    private final Set<UUID> waiting = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("reconciler-", 0).factory());
    private final MetricRegistry metrics;
    private final Counter offered;
    private final Counter skippedFull;
    private final Counter made;
    private final Counter answered;
    private final Counter neverTaken;
    private final Counter failed;
    private final Counter parked;
    private final Counter stillUnknown;
    private final Counter movedOn;
    private final Counter lostClaimsTaken;
    private final Counter lostClaimsNotTaken;
    private final LostClaims lostClaims;

    /**
     * @param concurrency   status queries in flight at most, over every gateway
     * @param queueCapacity messages waiting for their query at most; an offer beyond it is refused (asked at its next point)
     */
    public Reconciler(
            Map<String, Gateway> gateways,
            MessageReader reader,
            EventAppender appender,
            Duration window,
            int concurrency,
            int queueCapacity,
            InstantSource clock,
            String actor,
            MetricRegistry metrics) {
        if (concurrency < 1 || queueCapacity < 1) {
            throw new IllegalArgumentException("concurrency and queueCapacity must be at least 1");
        }
        gateways.forEach((name, g) -> {
            if (!g.provider().answersStatusQueries()) {
                throw new IllegalArgumentException("gateway " + name + " does not answer status queries");
            }
        });
        this.gateways = Map.copyOf(gateways);
        this.reader = reader;
        this.appender = appender;
        this.answers = new QueryAnswers(reader.dsl(), reader.events(), reader, clock, actor);
        this.window = window;
        this.clock = clock;
        this.actor = actor;
        this.queueCapacity = queueCapacity;
        this.calls = new Semaphore(concurrency);
        this.metrics = metrics;
        this.offered = metrics.counter("reconcile.offered");
        this.skippedFull = metrics.counter("reconcile.skipped.full");
        this.made = metrics.counter("reconcile.queries");
        this.answered = metrics.counter("reconcile.queries.answered");
        this.neverTaken = metrics.counter("reconcile.queries.not.found");
        this.failed = metrics.counter("reconcile.queries.failed");
        this.parked = metrics.counter("reconcile.answers.parked");
        this.stillUnknown = metrics.counter("reconcile.unknown");
        this.movedOn = metrics.counter("reconcile.moved.on");
        this.lostClaimsTaken = metrics.counter("reconcile.lost.claims.taken");
        this.lostClaimsNotTaken = metrics.counter("reconcile.lost.claims.not.taken");
        this.lostClaims = new LostClaims(reader, appender, clock, actor, metrics);
        metrics.registerGauge("reconcile.waiting", waiting::size);
        metrics.registerGauge("reconcile.in.flight", () -> concurrency - calls.availablePermits());
        for (String name : gateways.keySet()) {
            Counter byQuery = finals(name, "query");
            Counter byCallback = finals(name, "callback");
            metrics.register("reconcile.finals.by.query.share." + name, new RatioGauge() {
                @Override
                protected Ratio getRatio() {
                    return Ratio.of(byQuery.getCount(), byQuery.getCount() + byCallback.getCount());
                }
            });
        }
    }

    private Counter finals(String gateway, String how) {
        return FinalsLearned.counter(metrics, gateway, how);
    }

    /** Whether this gateway's messages are asked about (its {@code statusQuery: true}). */
    @Override
    public boolean asks(String gateway) {
        return gateways.containsKey(gateway);
    }

    /**
     * Asks about a message soon. {@code last}: the reconciliation window has ended, so an answer without a final makes
     * the message UNKNOWN. False when it is not taken now (already waiting, or the bound is reached): its next point asks.
     */
    @Override
    public boolean offer(UUID messageId, String gateway, boolean last) {
        return submitTask(messageId, gateway, () -> ask(messageId, gateway, last));
    }

    /**
     * Asks soon whether the provider took the last attempt of a message whose claim expired at the attempt limit (the
     * worker died or hung mid-call). Taken: the acceptance is recorded with its charge, as the worker would have. Never
     * taken: DEAD. A query that cannot say: nothing, and the timers offer it again until their grace ends, then UNKNOWN.
     */
    @Override
    public boolean offerLostClaim(UUID messageId, String gateway, int attempt) {
        return submitTask(messageId, gateway, () -> askLostClaim(messageId, gateway, attempt));
    }

    private interface Task {
        void run() throws InterruptedException;
    }

    private boolean submitTask(UUID messageId, String gateway, Task task) {
        if (!gateways.containsKey(gateway)) {
            return false;
        }
        if (waiting.size() >= queueCapacity) {
            skippedFull.inc();
            return false;
        }
        if (!waiting.add(messageId)) {
            return false;
        }
        try {
            threads.execute(() -> {
                try {
                    task.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    failed.inc();
                    LOG.warn(
                            "reconciling failed; asked again at its next point message_id={} gateway={}",
                            messageId,
                            gateway,
                            e);
                } finally {
                    waiting.remove(messageId);
                }
            });
        } catch (RejectedExecutionException stopped) {
            waiting.remove(messageId);
            return false;
        }
        offered.inc();
        return true;
    }

    private void askLostClaim(UUID messageId, String gateway, int attempt) throws InterruptedException {
        Gateway g = gateways.get(gateway);
        awaitRate(g);
        StatusAnswer answer;
        calls.acquire();
        try {
            made.inc();
            answer = g.provider().status(EffectKeys.providerSubmit(messageId));
        } finally {
            calls.release();
        }
        switch (answer) {
            case StatusAnswer.Found f -> {
                answered.inc();
                database.acquire();
                try {
                    if (lostClaims.recordTaken(messageId, gateway, attempt, f.providerId())) {
                        lostClaimsTaken.inc();
                        LOG.info(
                                "the provider took the last attempt of an expired claim; acceptance recorded message_id={} "
                                        + "provider_id={}",
                                messageId,
                                f.providerId());
                    }
                } finally {
                    database.release();
                }
            }
            case StatusAnswer.NeverTaken n -> {
                neverTaken.inc();
                database.acquire();
                try {
                    if (lostClaims.recordNeverTaken(messageId, attempt)) {
                        lostClaimsNotTaken.inc();
                        LOG.info(
                                "the provider never took the last attempt of an expired claim; DEAD message_id={}",
                                messageId);
                    }
                } finally {
                    database.release();
                }
            }
            case StatusAnswer.Failed f -> {
                failed.inc();
                LOG.info(
                        "status query of an expired claim failed; asked again message_id={} gateway={} reason=\"{}\"",
                        messageId,
                        gateway,
                        f.reason());
            }
        }
    }

    private void ask(UUID messageId, String gateway, boolean last) throws InterruptedException {
        Gateway g = gateways.get(gateway);
        awaitRate(g);
        boolean still;
        database.acquire();
        try {
            still = stillWaiting(messageId);
        } finally {
            database.release();
        }
        if (!still) {
            movedOn.inc();
            return; // a callback came while it waited: no query needed
        }
        StatusAnswer answer;
        calls.acquire();
        try {
            made.inc();
            answer = g.provider().status(EffectKeys.providerSubmit(messageId));
        } finally {
            calls.release();
        }
        QueryAnswers.Result result = null;
        switch (answer) {
            case StatusAnswer.Found f -> {
                answered.inc();
                database.acquire();
                try {
                    result = answers.record(messageId, gateway, g.vocabulary(), f.body());
                } finally {
                    database.release();
                }
                switch (result) {
                    case FINAL -> {
                        finals(gateway, "query").inc();
                        LOG.info("final status learned by query message_id={} gateway={}", messageId, gateway);
                    }
                    case PARKED -> {
                        parked.inc();
                        LOG.warn("status query answer parked message_id={} gateway={}", messageId, gateway);
                    }
                    case MOVED_ON -> movedOn.inc();
                    default -> {}
                }
            }
            case StatusAnswer.NeverTaken n -> {
                // The provider accepted it once (it gave an id) and no longer knows the key: it cannot place it.
                neverTaken.inc();
                LOG.warn(
                        "the provider does not know a message it accepted message_id={} gateway={}",
                        messageId,
                        gateway);
            }
            case StatusAnswer.Failed f -> {
                failed.inc();
                LOG.info(
                        "status query failed; asked again at its next point message_id={} gateway={} reason=\"{}\"",
                        messageId,
                        gateway,
                        f.reason());
                return;
            }
        }
        if (last
                && result != QueryAnswers.Result.FINAL
                && result != QueryAnswers.Result.TOLD_ALREADY
                && result != QueryAnswers.Result.MOVED_ON) {
            database.acquire();
            try {
                unknownNow(messageId, gateway);
            } finally {
                database.release();
            }
        }
    }

    /** Waits for the gateway's next query token, in every process's shared bucket. */
    private static void awaitRate(Gateway g) throws InterruptedException {
        while (!g.rate().acquire(1, RATE_WAIT)) {
            // Every token within RATE_WAIT is taken by other queries (of this process or another): ask again.
        }
    }

    private boolean stillWaiting(UUID messageId) {
        return reader.find(messageId).map(d -> waitingForReceipt(d.state())).orElse(false);
    }

    private static boolean waitingForReceipt(MessageState s) {
        return s.phase() == Phase.SENT || s.phase() == Phase.IN_TRANSIT;
    }

    /** The window has ended and the provider, asked, still cannot say: UNKNOWN (a later final still wins). */
    private void unknownNow(UUID messageId, String gateway) {
        Optional<MessageDetails> found = reader.find(messageId);
        if (found.isEmpty() || !waitingForReceipt(found.get().state())) {
            return;
        }
        MessageState s = found.get().state();
        OutcomeUnknown unknown = new OutcomeUnknown("no final status within " + window
                + " of the provider's acceptance, and the provider's status query gave none");
        NewEvent withFinal = new NewEvent(
                        messageId, s.nextSeq(), found.get().row().shard(), actor, clock.instant(), unknown)
                .deciding(s, found.get().row().tenant());
        if (appender.appendOne(withFinal)) {
            stillUnknown.inc();
            metrics.counter("messages.unknown").inc();
            LOG.info(
                    "message outcome unknown after its last status query message_id={} gateway={}", messageId, gateway);
        }
        // Lost the seq: something happened meanwhile (a receipt); the timers look at it again.
    }

    @Override
    public void start() {}

    @Override
    public void stop() throws InterruptedException {
        threads.shutdownNow();
        if (!threads.awaitTermination(5, TimeUnit.SECONDS)) {
            LOG.warn("status queries still running after stop");
        }
    }
}
