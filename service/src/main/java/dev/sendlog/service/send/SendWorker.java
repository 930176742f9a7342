package dev.sendlog.service.send;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import dev.sendlog.events.AttemptFailed;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.Dead;
import dev.sendlog.events.Expired;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.OutcomeUnknown;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.events.RedriveReason;
import dev.sendlog.events.Redriven;
import dev.sendlog.events.Rejected;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.projections.Decisions;
import dev.sendlog.projections.Limits;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.projections.MessageState;
import dev.sendlog.projections.Phase;
import dev.sendlog.service.faults.FaultPoint;
import dev.sendlog.service.faults.Faults;
import dev.sendlog.service.log.AppendKey;
import dev.sendlog.service.log.Charge;
import dev.sendlog.service.log.EffectKeys;
import dev.sendlog.service.log.EventAppender;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.MessageRow;
import dev.sendlog.service.log.NewEvent;
import dev.sendlog.service.log.PublicationWake;
import dev.sendlog.service.log.Publications;
import dev.sendlog.service.log.Segments;
import dev.sendlog.service.log.WriteRetries;
import dev.sendlog.service.logging.LogText;
import dev.sendlog.service.metrics.Metrics;
import dev.sendlog.service.queue.SendJob;
import dev.sendlog.service.queue.StreamConsumer;
import dev.sendlog.service.queue.StreamEntry;
import dev.sendlog.service.send.provider.Provider;
import dev.sendlog.service.send.provider.SendRate;
import dev.sendlog.service.send.provider.StatusAnswer;
import dev.sendlog.service.send.provider.Submit;
import dev.sendlog.service.send.provider.SubmitOutcome;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes send jobs from the stream and sends them, each on a virtual thread: at most {@code concurrency} provider
 * calls at once (a semaphore around the call), and at most {@code jobsPerCallSlot} times as many jobs in progress
 * (the stream consumer's semaphore), so that claims and outcome writes overlap other jobs' calls. Its own
 * semaphores, executor and Redis connections: nothing shared with other job types.
 *
 * <p>For each job: append CLAIMED before anything else; run the internal checks (REJECTED on failure);
 * call the provider with no transaction open; record the outcome (PROVIDER_ACCEPTED with its charge in one
 * transaction, ATTEMPT_FAILED, DEAD or REJECTED); only then acknowledge and delete the stream entry. Every
 * append names the seq it expects; when another writer got there first, the worker re-reads and decides
 * again. If the outcome cannot be written, the entry stays unacknowledged and the claim deadline brings
 * the message back: the next submit carries the same idempotency key, so the provider answers with the
 * same id, and the ledger's key admits one charge.
 */
public final class SendWorker {
    private static final Logger LOG = LoggerFactory.getLogger(SendWorker.class);
    private static final int MAX_DECISIONS = 5;
    private static final Duration RECORD_RETRY_FOR = Duration.ofSeconds(20);
    private static final Duration PUBLICATION_WAIT = Duration.ofSeconds(5);
    private static final Duration BATCH_PUBLICATION_WAIT = Duration.ofMillis(500);
    /** After a 429 without Retry-After from a gateway that has no rate of its own. */
    private static final Duration UNRATED_THROTTLE_PAUSE = Duration.ofSeconds(1);
    /**
     * How long a job waits unclaimed for its gateway's rate (on its own thread, holding its permit) before it is left
     * pending on the stream (read again after the consumer's reclaim idle time, or published again by the confirm timer).
     */
    private static final Duration RATE_WAIT_FOR_CLAIM = Duration.ofSeconds(20);

    private final StreamConsumer consumer;
    private final MessageReader reader;
    private final EventAppender appender;
    private final Map<String, Provider> providers;
    private final Map<String, SendRate> rates;
    private final Failover failover;
    private final Counter throttled;
    /** Per gateway without a rate of its own: until when (epoch ms) its last 429's Retry-After holds every job back. */
    private final Map<String, AtomicLong> unratedPauseUntilMs = new java.util.concurrent.ConcurrentHashMap<>();

    private final Checks checks;
    private final Backoff backoff;
    private final Limits limits;
    private final String publicBaseUrl;
    private final InstantSource clock;
    private final String actor;
    private final Faults faults;
    private final Timer queueWait;
    private final Timer claimTimer;
    private final Timer checkTimer;
    private final Timer providerTimer;
    private final SendShares shares;
    private final Timer resultTimer;
    private final Timer endToEnd;
    private final Counter stale;
    private final Counter sent;
    private final Counter rejected;
    private final Counter retried;
    private final Counter dead;
    private final Counter unknown;
    private final Counter expired;
    private final Counter unrecorded;
    private final Semaphore providerCalls;
    private final Publications publications;
    private final Counter unpublished;

    private final Counter racesGivenUp;
    private final Counter handedBack;
    private final Counter lostAnswersFound;
    private final Counter lostAnswersNotTaken;
    private final Counter lostAnswerQueriesFailed;
    private final java.util.concurrent.atomic.LongAdder handedBackHere = new java.util.concurrent.atomic.LongAdder();
    private final ProviderCallGate gate = new ProviderCallGate();
    private final java.util.function.Consumer<NewEvent> beforeResultAppend;

    /**
     * A send worker that takes {@code consumer}'s reads. The handler is registered only once the worker is whole: a
     * constructor that registered it would let the consumer's reader call a worker whose fields are not set yet.
     */
    public static SendWorker attach(
            StreamConsumer consumer,
            MessageReader reader,
            EventAppender appender,
            Map<String, Provider> providers,
            Checks checks,
            Backoff backoff,
            Limits limits,
            String publicBaseUrl,
            InstantSource clock,
            String actor,
            Faults faults,
            int providerConcurrency,
            MetricRegistry metrics) {
        return attach(
                consumer,
                reader,
                appender,
                providers,
                Map.of(),
                Failover.none("sim"),
                checks,
                backoff,
                limits,
                publicBaseUrl,
                clock,
                actor,
                faults,
                providerConcurrency,
                metrics);
    }

    /**
     * As above, with the rates of the gateways that have one ({@code gateways.<name>.maxPerSecond}) and the routes and
     * gateway health that decide failovers (issue 29).
     */
    public static SendWorker attach(
            StreamConsumer consumer,
            MessageReader reader,
            EventAppender appender,
            Map<String, Provider> providers,
            Map<String, SendRate> rates,
            Failover failover,
            Checks checks,
            Backoff backoff,
            Limits limits,
            String publicBaseUrl,
            InstantSource clock,
            String actor,
            Faults faults,
            int providerConcurrency,
            MetricRegistry metrics) {
        SendWorker worker = new SendWorker(
                consumer,
                reader,
                appender,
                providers,
                rates,
                failover,
                checks,
                backoff,
                limits,
                publicBaseUrl,
                clock,
                actor,
                faults,
                providerConcurrency,
                metrics,
                event -> {});
        consumer.onEntries(worker::claimAndDispatch);
        return worker;
    }

    /**
     * As {@link #attach(StreamConsumer, MessageReader, EventAppender, Map, Checks, Backoff, Limits, String,
     * InstantSource, String, Faults, int, MetricRegistry)}, with a test seam: {@code beforeResultAppend} is handed each
     * result of an attempt (REJECTED, ATTEMPT_FAILED, DEAD, handed back) and each acceptance (its first part) just
     * before its append, after the state it was decided on was read. A test commits a competing event
     * at that seq there, as a concurrent writer would, so the append loses its race for real (a unique violation on the
     * event's key); production passes nothing that acts.
     */
    static SendWorker attach(
            StreamConsumer consumer,
            MessageReader reader,
            EventAppender appender,
            Map<String, Provider> providers,
            Checks checks,
            Backoff backoff,
            Limits limits,
            String publicBaseUrl,
            InstantSource clock,
            String actor,
            Faults faults,
            int providerConcurrency,
            MetricRegistry metrics,
            java.util.function.Consumer<NewEvent> beforeResultAppend) {
        SendWorker worker = new SendWorker(
                consumer,
                reader,
                appender,
                providers,
                Map.of(),
                Failover.none("sim"),
                checks,
                backoff,
                limits,
                publicBaseUrl,
                clock,
                actor,
                faults,
                providerConcurrency,
                metrics,
                beforeResultAppend);
        consumer.onEntries(worker::claimAndDispatch);
        return worker;
    }

    private SendWorker(
            StreamConsumer consumer,
            MessageReader reader,
            EventAppender appender,
            Map<String, Provider> providers,
            Map<String, SendRate> rates,
            Failover failover,
            Checks checks,
            Backoff backoff,
            Limits limits,
            String publicBaseUrl,
            InstantSource clock,
            String actor,
            Faults faults,
            int providerConcurrency,
            MetricRegistry metrics,
            java.util.function.Consumer<NewEvent> beforeResultAppend) {
        this.faults = faults;
        this.consumer = consumer;
        this.reader = reader;
        this.appender = appender;
        this.providers = Map.copyOf(providers);
        this.rates = Map.copyOf(rates);
        this.failover = failover;
        this.throttled = metrics.counter("send.throttled");
        this.checks = checks;
        this.backoff = backoff;
        this.limits = limits;
        this.publicBaseUrl = publicBaseUrl.replaceAll("/+$", "");
        this.clock = clock;
        this.actor = actor;
        this.queueWait = Metrics.timer(metrics, "send.queue.wait");
        this.claimTimer = Metrics.timer(metrics, "send.claim");
        this.checkTimer = Metrics.timer(metrics, "send.check");
        this.providerTimer = Metrics.timer(metrics, "send.provider");
        this.resultTimer = Metrics.timer(metrics, "send.result");
        this.endToEnd = Metrics.timer(metrics, "send.accepted.to.sent");
        this.stale = metrics.counter("send.stale.jobs");
        this.sent = metrics.counter("messages.sent");
        this.rejected = metrics.counter("messages.rejected");
        this.retried = metrics.counter("send.attempts.failed");
        this.dead = metrics.counter("messages.dead");
        this.unknown = metrics.counter("send.outcomes.unknown");
        this.expired = metrics.counter("messages.expired");
        this.unrecorded = metrics.counter("send.outcomes.unrecorded");
        this.racesGivenUp = metrics.counter("send.races.given.up");
        this.handedBack = metrics.counter("send.jobs.handed.back");
        this.lostAnswersFound = metrics.counter("send.retry.queries.found");
        this.lostAnswersNotTaken = metrics.counter("send.retry.queries.not.taken");
        this.lostAnswerQueriesFailed = metrics.counter("send.retry.queries.failed");
        this.beforeResultAppend = beforeResultAppend;
        this.providerCalls = new Semaphore(providerConcurrency);
        this.publications = new Publications(reader.dsl());
        this.unpublished = metrics.counter("send.jobs.publication.not.recorded");
        // Per lane ("send", "send-high"): each lane's worker has its own provider-call bound.
        metrics.registerGauge(
                consumer.name() + ".provider.in.flight", () -> providerConcurrency - providerCalls.availablePermits());
        metrics.registerGauge(consumer.name() + ".provider.bound", () -> providerConcurrency);
        this.shares = new SendShares(metrics);
    }

    /**
     * Claims a whole read at once: one query for the messages and their histories, one transaction for the
     * CLAIMED events. Each won claim goes on to its own virtual thread; stale jobs are acknowledged at once; a
     * claim that lost its seq is retried alone on its thread. Every entry's permit is released exactly once.
     */
    void claimAndDispatch(List<StreamEntry> entries) {
        Map<UUID, StreamEntry> firstPerMessage = new LinkedHashMap<>();
        Map<StreamEntry, SendJob> jobsOf = new HashMap<>();
        List<StreamEntry> finished = new ArrayList<>();
        for (StreamEntry entry : entries) {
            try {
                SendJob job = SendJob.fromFields(entry.fields());
                queueWait.update(Math.max(0, clock.millis() - job.publishedAtMs()), TimeUnit.MILLISECONDS);
                if (firstPerMessage.putIfAbsent(job.messageId(), entry) == null) {
                    jobsOf.put(entry, job);
                } else {
                    stale.inc();
                    finished.add(entry);
                }
            } catch (IllegalArgumentException e) {
                LOG.error(
                        "dropping a stream entry that is not a send job entry_id={} fields={}",
                        entry.id(),
                        entry.fields());
                finished.add(entry);
            }
        }
        Map<StreamEntry, ClaimResult> claimed = new HashMap<>();
        List<StreamEntry> lost = new ArrayList<>();
        List<StreamEntry> notYetRecorded = new ArrayList<>();
        List<StreamEntry> waitingForRate = new ArrayList<>();
        // What the batch's read found, for the jobs that claim on a thread of their own later (waiting for the
        // gateway's rate or for their publication): they claim from it first, and read again only when another writer
        // moved the message on meanwhile (their append's expected seq lost), not once or twice each (the fair-share
        // benchmark's flood: two reads per message, whose planning took 0.3 of a core of the database).
        Map<UUID, MessageDetails> readInBatch = new HashMap<>();
        try (Timer.Context ignored = claimTimer.time()) {
            MessageReader.Found read = reader.findMany(
                    firstPerMessage.keySet(),
                    jobsOf.values().stream().map(SendJob::publication).toList());
            Map<UUID, MessageDetails> found = read.messages();
            readInBatch.putAll(found);
            Set<Long> recorded = new java.util.HashSet<>(read.recordedPublications());
            Set<Long> unseen = new java.util.HashSet<>();
            jobsOf.values().forEach(j -> {
                if (!recorded.contains(j.publication()) && !publicationWaitOver(j)) {
                    unseen.add(j.publication());
                }
            });
            if (!unseen.isEmpty()) {
                // The poller commits a moment after its jobs reach the stream, and a worker that reads at once often
                // sees them first: wait for the batch's publications together (one query a round), not job by job.
                recorded.addAll(publications.awaitRecorded(unseen, BATCH_PUBLICATION_WAIT));
            }
            Map<StreamEntry, NewEvent> claims = new LinkedHashMap<>();
            Map<StreamEntry, ClaimResult> candidates = new HashMap<>();
            Instant now = clock.instant();
            for (Map.Entry<StreamEntry, SendJob> e : jobsOf.entrySet()) {
                SendJob job = e.getValue();
                MessageDetails details = found.get(job.messageId());
                if (details == null) {
                    LOG.error("send job for a message that does not exist message_id={}", job.messageId());
                    stale.inc();
                    finished.add(e.getKey());
                    continue;
                }
                if (!recorded.contains(job.publication())) {
                    if (publicationWaitOver(job)) {
                        // Published longer ago than a publication takes to commit, and still not recorded: its
                        // transaction rolled back (a commit that failed in a failover). Dropped now, without a wait of
                        // its own: behind a backlog of such jobs, a wait each held the lane's permits and its pool
                        // until every job read was stale (HA chaos seed 15714999387188).
                        droppedUnpublished(job);
                        finished.add(e.getKey());
                        continue;
                    }
                    // The poller's transaction commits a moment after the job reached the stream: claim once it has, so
                    // every claim names a publication the history can show.
                    notYetRecorded.add(e.getKey());
                    continue;
                }
                Optional<NewEvent> claim = claimEvent(details, job, now);
                if (claim.isEmpty()) {
                    stale.inc(); // before the rate: a stale job takes none of the gateway's tokens
                    finished.add(e.getKey());
                    continue;
                }
                // The gateway's rate is taken before the claim, not after it: a claim promises a call soon (its
                // deadline re-drives it). A job whose tokens are not there now waits for them on a thread of its own,
                // unclaimed and holding its permit, and is claimed once it has them (waitForRateThenClaim).
                SendRate rate = rates.get(details.state().gateway());
                boolean rateTaken = false;
                if (rate != null && claim.get().event() instanceof Claimed) {
                    if (!rate.tryAcquire(Segments.of(details.row().body()))) {
                        waitingForRate.add(e.getKey());
                        continue;
                    }
                    rateTaken = true;
                }
                claims.put(e.getKey(), claim.get());
                if (claim.get().event() instanceof Claimed c) {
                    candidates.put(
                            e.getKey(), new ClaimResult(details, evolve(details.state(), claim.get()), c, rateTaken));
                }
            }
            // A claim that expires before its publication's confirm deadline (claimTimeout shorter than confirmTimeout)
            // is looked at by the timers at that deadline: late by at most the difference, never missed.
            Set<AppendKey> won = claims.isEmpty() ? Set.of() : appender.append(new ArrayList<>(claims.values()), null);
            claims.forEach((entry, event) -> {
                if (won.contains(event.key()) && event.event() instanceof Expired) {
                    expiredAtClaim(event);
                    finished.add(entry);
                } else if (won.contains(event.key())) {
                    claimed.put(entry, candidates.get(entry));
                } else {
                    lost.add(entry);
                }
            });
        } catch (RuntimeException e) {
            // Nothing claimed: the entries stay pending and come back (reclaimed, or published again by the confirm
            // timer).
            LOG.warn("claiming {} jobs failed; they stay pending: {}", jobsOf.size(), e.toString());
            consumer.finished(finished);
            consumer.abandoned(entries.subList(0, entries.size() - finished.size()));
            return;
        }
        consumer.finished(finished);
        waitingForRate.forEach(entry -> consumer.dispatch(
                entry,
                () -> waitForRateThenClaim(
                        jobsOf.get(entry), readInBatch.get(jobsOf.get(entry).messageId()))));
        claimed.forEach((entry, result) -> consumer.dispatch(entry, () -> finishClaimed(jobsOf.get(entry), result)));
        lost.forEach(entry -> consumer.dispatch(
                entry,
                () -> claimAlone(jobsOf.get(entry), false)
                        .map(r -> finishClaimed(jobsOf.get(entry), r))
                        .orElse(true)));
        notYetRecorded.forEach(entry -> consumer.dispatch(
                entry,
                () -> claimAlone(
                                jobsOf.get(entry),
                                true,
                                false,
                                readInBatch.get(jobsOf.get(entry).messageId()))
                        .map(r -> finishClaimed(jobsOf.get(entry), r))
                        .orElse(true)));
    }

    /**
     * The CLAIMED event of a job, naming its publication, or empty when the job is stale. When the message's validity
     * has passed, EXPIRED instead, at the same seq (a retry is claimed too, so this is also the check before every
     * retry): the provider is never called for it, and if another writer (a timer, a cancel) took the seq first, the
     * worker reads again and decides again like after any lost claim.
     */
    private Optional<NewEvent> claimEvent(MessageDetails details, SendJob job, Instant now) {
        MessageState state = details.state();
        Optional<Claimed> claim = Decisions.claim(state, job.workSeq(), job.attempt(), actor, now, limits);
        if (claim.isEmpty()) {
            return Optional.empty();
        }
        MessageEvent event = Decisions.expiry(state, details.row().validUntil(), now)
                .<MessageEvent>map(x -> x)
                .orElse(claim.get());
        return Optional.of(
                new NewEvent(job.messageId(), state.nextSeq(), details.row().shard(), actor, now, event)
                        .withPublication(job.publication())
                        .deciding(state, details.row().tenant()));
    }

    private void expiredAtClaim(NewEvent event) {
        expired.inc();
        LOG.info("message expired before it was claimed for sending message_id={}", event.messageId());
    }

    private static MessageState evolve(MessageState state, NewEvent event) {
        return MessageFold.evolve(state, stored(event));
    }

    /** After the claim: checks, the provider call, the outcome. True when the entry may be acknowledged. */
    private boolean finishClaimed(SendJob job, ClaimResult claimed) {
        MessageDetails message = claimed.message();
        MessageState state = claimed.state();
        Claimed claim = claimed.claim();
        faults.at(FaultPoint.AFTER_CLAIM);
        short shard = message.row().shard();
        Optional<Rejected> refusal;
        try (Timer.Context ignored = checkTimer.time()) {
            refusal = checks.rejection(message.row());
        }
        if (refusal.isPresent()) {
            if (recordUnlessMovedOn(job, message.row(), state, refusal.get(), shard)) {
                rejected.inc();
                LOG.info(
                        "message rejected by check message_id={} reason=\"{}\"",
                        job.messageId(),
                        refusal.get().lastError());
            }
            return true;
        }
        // Where the message is now: the gateway it was accepted for, or the one its last failover moved it to.
        String gateway = state.gateway();
        Provider provider = providers.get(gateway);
        if (provider == null) {
            if (recordUnlessMovedOn(
                    job,
                    message.row(),
                    state,
                    new Rejected(Rejected.STAGE_CHECK, "gateway " + gateway + " is not configured"),
                    shard)) {
                rejected.inc();
            }
            return true;
        }
        String nextGateway = failover.next(message.row(), gateway);
        if (nextGateway != null && failover.isDown(gateway)) {
            Optional<Redriven> moved =
                    Decisions.failover(state, nextGateway, "gateway " + gateway + " is marked down; not called");
            if (moved.isPresent()) {
                return recordFailover(job, message, state, moved.get(), gateway, shard);
            }
        }
        SubmitOutcome outcome;
        SendRate rate = rates.get(gateway);
        int parts = Segments.of(message.row().body());
        // A call starts no later than halfway to the claim deadline (waiting for the gateway's rate, or after a 429):
        // past that the job is handed back, the same attempt owed again, before the timers would re-drive a claim
        // whose call may still come.
        Instant latestStart = clock.instant()
                .plus(Duration.between(clock.instant(), claim.deadline()).dividedBy(2));
        boolean asked = false;
        boolean rateTaken = claimed.rateTaken();
        boolean waited = false;
        while (true) {
            if (rate != null && !rateTaken) {
                waited = true;
                boolean granted;
                try {
                    granted = rate.acquire(parts, nonNegative(Duration.between(clock.instant(), latestStart)));
                } catch (InterruptedException e) {
                    Thread.interrupted();
                    try {
                        return handBack(job, message, state, shard);
                    } finally {
                        Thread.currentThread().interrupt();
                    }
                }
                if (!granted) {
                    LOG.info(
                            "gateway {} rate kept the job waiting past half its claim time; handed back message_id={}",
                            gateway,
                            job.messageId());
                    return handBack(job, message, state, shard);
                }
            }
            long pausedMs = rate == null ? unratedPauseLeftMs(gateway) : 0;
            if (pausedMs > 0) {
                // The gateway said 429 to some job of this process a moment ago: every job of it waits out the same
                // Retry-After instead of submitting into the refusal.
                if (clock.instant().plusMillis(pausedMs).isAfter(latestStart)) {
                    return handBack(job, message, state, shard);
                }
                try {
                    Thread.sleep(pausedMs); // the provider's own wait: nothing to await but the time it named
                } catch (InterruptedException e) {
                    Thread.interrupted();
                    try {
                        return handBack(job, message, state, shard);
                    } finally {
                        Thread.currentThread().interrupt();
                    }
                }
                waited = true;
            }
            if (waited && clock.instant().isAfter(latestStart)) {
                // The wait (the gateway's rate, a 429's pause) ran past half the claim time by the pipeline's clock (a
                // paused process, a slow host): the timers may re-drive the claim at any moment and a call now could
                // overlap the next attempt's, one key submitted twice. Handed back instead, the provider not called.
                LOG.info(
                        "a wait for gateway {} ran past half the claim time; handed back message_id={}",
                        gateway,
                        job.messageId());
                return handBack(job, message, state, shard);
            }
            try {
                providerCalls.acquire();
            } catch (InterruptedException e) {
                // Stopped while waiting for a call slot: the provider was not called, so the job is given back.
                Thread.interrupted();
                try {
                    return handBack(job, message, state, shard);
                } finally {
                    Thread.currentThread().interrupt();
                }
            }
            if (!gate.enter()) {
                providerCalls.release();
                return handBack(job, message, state, shard);
            }
            SendShares.Call share = shares.start(message.row().tenant(), gateway);
            try (Timer.Context ignored = providerTimer.time()) {
                String key = EffectKeys.providerSubmit(job.messageId());
                Optional<String> taken = !asked && claim.attempt() > 1 && provider.answersStatusQueries()
                        ? alreadyTaken(provider, key, job.messageId())
                        : Optional.empty();
                asked = true;
                outcome = taken.<SubmitOutcome>map(SubmitOutcome.Accepted::new)
                        .orElseGet(() -> provider.submit(new Submit(
                                message.row().recipient(),
                                message.row().body(),
                                job.messageId().toString(),
                                publicBaseUrl + "/v1/callbacks/" + gateway,
                                key,
                                message.row().sender(),
                                message.row().validUntil())));
                if (outcome instanceof SubmitOutcome.Transient
                        && claim.attempt() >= limits.maxAttempts()
                        && provider.answersStatusQueries()) {
                    // The last attempt: no retry will ask, so ask now whether its answer was lost before the message is
                    // DEAD.
                    outcome = alreadyTaken(provider, key, job.messageId())
                            .<SubmitOutcome>map(SubmitOutcome.Accepted::new)
                            .orElse(outcome);
                }
            } finally {
                share.close();
                gate.exit();
                providerCalls.release();
            }
            rateTaken = false;
            waited = true;
            if (!(outcome instanceof SubmitOutcome.Throttled t)) {
                break;
            }
            // Refused for its rate: the provider certainly does not have it, so this is no failed attempt. A gateway
            // with a rate of its own slows down (every process) and the next take waits for it; one without pauses
            // every job of this process for the Retry-After (or a second), this one included, before they submit again.
            throttled.inc();
            if (rate != null) {
                rate.throttled(t.retryAfter());
                continue;
            }
            Duration pause = t.retryAfter() != null ? t.retryAfter() : UNRATED_THROTTLE_PAUSE;
            unratedPauseUntilMs
                    .computeIfAbsent(gateway, g -> new AtomicLong())
                    .accumulateAndGet(System.currentTimeMillis() + pause.toMillis(), Math::max);
        }
        if (outcome instanceof SubmitOutcome.Transient || outcome instanceof SubmitOutcome.Unknown) {
            failover.failed(gateway);
        } else {
            failover.answered(gateway);
        }
        if (outcome instanceof SubmitOutcome.Accepted) {
            faults.at(FaultPoint.BETWEEN_PROVIDER_ANSWER_AND_WRITE);
        }
        // The gateway certainly did not take it (a refusal before acceptance, no connection): a routed message passes
        // to the next gateway of its route with the same attempt, unless this gateway may have it from an earlier
        // claim. A timeout or a cut connection never moves it: its outcome is unknown (invariant 18).
        String certainRefusal = switch (outcome) {
            case SubmitOutcome.Permanent p -> p.describe();
            case SubmitOutcome.Transient t when t.notTaken() -> t.reason();
            default -> null;
        };
        if (certainRefusal != null && nextGateway != null) {
            Optional<Redriven> moved = Decisions.failover(state, nextGateway, certainRefusal);
            if (moved.isPresent()) {
                return recordFailover(job, message, state, moved.get(), gateway, shard);
            }
        }
        try (Timer.Context ignored = resultTimer.time()) {
            return switch (outcome) {
                case SubmitOutcome.Accepted a -> recordAcceptance(job, message, state, a.partIds(), shard);
                case SubmitOutcome.Permanent p -> {
                    if (recordUnlessMovedOn(
                            job, message.row(), state, new Rejected(Rejected.STAGE_PROVIDER, p.describe()), shard)) {
                        rejected.inc();
                    }
                    yield true;
                }
                case SubmitOutcome.Throttled t ->
                    throw new IllegalStateException("a throttled submit is retried above");
                case SubmitOutcome.Unknown u -> {
                    if (recordUnlessMovedOn(job, message.row(), state, new OutcomeUnknown(u.reason()), shard)) {
                        unknown.inc();
                        LOG.warn(
                                "outcome unknown, not submitted again message_id={} gateway={} reason=\"{}\"",
                                job.messageId(),
                                gateway,
                                LogText.escape(u.reason()));
                    }
                    yield true;
                }
                case SubmitOutcome.Transient t -> {
                    Instant next = clock.instant().plus(backoff.after(claim.attempt(), t.retryAfter()));
                    MessageEvent event = Decisions.afterTransientFailure(state, t.reason(), next, limits);
                    if (!recordUnlessMovedOn(job, message.row(), state, event, shard)) {
                        yield true; // not recorded: counted as unrecorded or dropped as stale there
                    }
                    if (event instanceof Dead d) {
                        dead.inc();
                        LOG.warn("message dead message_id={} reason=\"{}\"", job.messageId(), d.reason());
                    } else {
                        retried.inc();
                    }
                    yield true;
                }
            };
        }
    }

    /**
     * Before a retry on a gateway that answers status queries, asks whether an earlier attempt's submit was taken after
     * all (issue 32): an attempt whose answer was lost (a timeout, a cut connection, a worker that died mid-call) may
     * have reached the provider. Found: the provider id, recorded as the acceptance without a second submit. Never taken
     * (404): empty, and the retry submits. A query that cannot say: empty too, and the retry submits with the same
     * idempotency key, as it did before the query existed (counted, so a gateway whose queries fail shows up). Every
     * retry asks, not only those after a lost answer: a 5xx answer is lost for this purpose too when a worker died
     * before recording it, and one GET is cheaper than a second submit.
     */
    private Optional<String> alreadyTaken(Provider provider, String key, UUID messageId) {
        return switch (provider.status(key)) {
            case StatusAnswer.Found f -> {
                lostAnswersFound.inc();
                LOG.info(
                        "an earlier attempt was taken by the provider; recorded without a second submit message_id={} "
                                + "provider_id={}",
                        messageId,
                        f.providerId());
                yield Optional.of(f.providerId());
            }
            case StatusAnswer.NeverTaken n -> {
                lostAnswersNotTaken.inc();
                yield Optional.empty();
            }
            case StatusAnswer.Failed f -> {
                lostAnswerQueriesFailed.inc();
                LOG.warn(
                        "status query before a retry failed; submitting again with the same key message_id={} reason=\"{}\"",
                        messageId,
                        f.reason());
                yield Optional.empty();
            }
        };
    }

    /** Records a failover decided by {@link Decisions#failover}: the same attempt owed again on the next gateway. */
    private boolean recordFailover(
            SendJob job, MessageDetails message, MessageState state, Redriven moved, String from, short shard) {
        if (recordUnlessMovedOn(job, message.row(), state, moved, shard)) {
            failover.failedOver(from);
            LOG.info(
                    "message passed from gateway {} to {} message_id={} reason=\"{}\"",
                    from,
                    moved.gateway(),
                    job.messageId(),
                    LogText.escape(moved.error()));
        }
        return true;
    }

    /**
     * Gives a claimed job back before its provider call began (shutting down): the same attempt is owed again, and the
     * REDRIVEN row is work the shard's poller publishes at once, for another worker to claim, instead of the message
     * waiting for its claim deadline.
     */
    private boolean handBack(SendJob job, MessageDetails message, MessageState state, short shard) {
        if (recordUnlessMovedOn(
                job, message.row(), state, new Redriven(job.attempt(), RedriveReason.HANDED_BACK), shard)) {
            handedBack.inc();
            handedBackHere.increment();
        }
        return true;
    }

    /** Shutting down: lets no more provider calls begin (jobs reaching one are handed back); returns the calls in flight. */
    public int stopCalling() {
        return gate.close();
    }

    /** Waits up to {@code atMost} for the provider calls in flight to end; returns how many have not. */
    public int awaitCalls(Duration atMost) throws InterruptedException {
        return gate.awaitNoCalls(atMost);
    }

    /** Jobs handed back so far. */
    public long handedBack() {
        return handedBackHere.sum(); // this worker's own: the counter is shared by both lanes' workers
    }

    /** @param rateTaken whether the gateway's rate was taken for the first call before the claim */
    private record ClaimResult(MessageDetails message, MessageState state, Claimed claim, boolean rateTaken) {}

    /**
     * A job whose gateway had no tokens for it when its batch was read ({@code read}, what that read found of its
     * message): waits for them (in the bucket's order, up to RATE_WAIT_FOR_CLAIM), then claims alone. Not granted in
     * time, or stopped while waiting: false, and the entry stays pending (read again after the consumer's reclaim idle
     * time, or published again at its publication's confirm deadline), nothing written.
     */
    private boolean waitForRateThenClaim(SendJob job, MessageDetails read) {
        // The batch's read found the message and decided a claim (not stale, not expired): no read before the wait.
        SendRate rate = rates.get(read.state().gateway());
        try {
            if (!rate.acquire(Segments.of(read.row().body()), RATE_WAIT_FOR_CLAIM)) {
                LOG.info(
                        "gateway {} rate kept a job waiting {} s unclaimed; it stays pending message_id={}",
                        rate.gateway(),
                        RATE_WAIT_FOR_CLAIM.toSeconds(),
                        job.messageId());
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        // Claimed from the batch's read: the append names the seq that read expects, so a message moved on during the
        // wait (a cancel, a timer) loses the append and is read again and decided again.
        return claimAlone(job, false, true, read)
                .map(r -> finishClaimed(job, r))
                .orElse(true);
    }

    /**
     * Appends CLAIMED at the next seq if the job's work is still owed; re-reads when another writer won. With
     * {@code awaitPublication}, first waits (a few seconds at most) for the job's publication to be visible; one that
     * never is belonged to a transaction that rolled back after the publish, and the poller publishes the work again.
     */
    private Optional<ClaimResult> claimAlone(SendJob job, boolean awaitPublication) {
        return claimAlone(job, awaitPublication, false, null);
    }

    /**
     * How much longer a job may wait for its publication to be recorded: {@link #PUBLICATION_WAIT} from its publication
     * (the poller's clock, in the job), not from when it was read, so a job read late waits little or not at all. A
     * worker clock ahead of the poller's drops a job early; its work, if its publication did commit, comes back at the
     * publication's confirm deadline: later, never lost.
     */
    private Duration publicationWaitLeft(SendJob job) {
        long left = PUBLICATION_WAIT.toMillis() - (clock.millis() - job.publishedAtMs());
        return Duration.ofMillis(Math.clamp(left, 0, PUBLICATION_WAIT.toMillis()));
    }

    private boolean publicationWaitOver(SendJob job) {
        return publicationWaitLeft(job).isZero();
    }

    private void droppedUnpublished(SendJob job) {
        unpublished.inc();
        stale.inc();
        LOG.info(
                "send job of a publication that was never recorded is dropped message_id={} publication={}",
                job.messageId(),
                job.publication());
    }

    /** @param rateTaken whether the gateway's rate was taken for the first call already */
    private Optional<ClaimResult> claimAlone(
            SendJob job, boolean awaitPublication, boolean rateTaken, MessageDetails alreadyRead) {
        if (awaitPublication && !publications.awaitRecorded(job.publication(), publicationWaitLeft(job))) {
            droppedUnpublished(job);
            return Optional.empty();
        }
        for (int i = 0; i < MAX_DECISIONS; i++) {
            // The first decision may come from a read already made (the seq it expects guards it); each one after a
            // lost race reads again.
            Optional<MessageDetails> found =
                    i == 0 && alreadyRead != null ? Optional.of(alreadyRead) : reader.find(job.messageId());
            if (found.isEmpty()) {
                LOG.error("send job for a message that does not exist message_id={}", job.messageId());
                stale.inc();
                return Optional.empty();
            }
            Optional<NewEvent> claim = claimEvent(found.get(), job, clock.instant());
            if (claim.isEmpty()) {
                stale.inc();
                return Optional.empty();
            }
            if (claim.get().event() instanceof Expired) {
                if (appender.appendOne(claim.get())) {
                    expiredAtClaim(claim.get());
                    return Optional.empty();
                }
                continue;
            }
            if (appender.appendOne(claim.get())) {
                return Optional.of(new ClaimResult(
                        found.get(),
                        evolve(found.get().state(), claim.get()),
                        (Claimed) claim.get().event(),
                        rateTaken));
            }
        }
        // Not stale: the work is still owed, and the publication's confirm deadline brings it back.
        racesGivenUp.inc();
        LOG.warn(
                "gave up claiming after {} lost races message_id={}; the confirm deadline brings the message back",
                MAX_DECISIONS,
                job.messageId());
        return Optional.empty();
    }

    /**
     * Records the provider's acceptance with its charge, whatever happened meanwhile (a timer may have re-driven
     * the message): the provider has it, so it is recorded once. Retries database failures for a while; if the
     * write still fails, the entry stays pending and recovery re-submits with the same key.
     */
    private boolean recordAcceptance(
            SendJob job, MessageDetails message, MessageState claimed, List<String> partIds, short shard) {
        String providerId = partIds.getFirst();
        MessageState[] state = {claimed};
        try {
            return WriteRetries.retry(
                    RECORD_RETRY_FOR,
                    () -> acceptanceRaces(job, message, state[0], partIds, shard),
                    () -> state[0] = readQuietly(job, state[0]));
        } catch (RuntimeException e) {
            unrecorded.inc();
            LOG.error(
                    "provider accepted but recording failed message_id={} provider_id={}{}; recovery re-submits with the "
                            + "same key",
                    job.messageId(),
                    providerId,
                    Thread.currentThread().isInterrupted() ? " (interrupted)" : "",
                    e);
            return false;
        }
    }

    /** One try at the acceptance's append, deciding again after each lost race. */
    private boolean acceptanceRaces(
            SendJob job, MessageDetails message, MessageState claimed, List<String> partIds, short shard) {
        MessageState state = claimed;
        for (int i = 0; i < MAX_DECISIONS; i++) {
            if (!Decisions.shouldRecordAcceptance(state)) {
                return true;
            }
            Instant now = clock.instant();
            // One event per part the provider took (one for a message sent whole), in one append with the charge.
            List<NewEvent> events = new ArrayList<>(partIds.size());
            MessageState before = state;
            for (int part = 1; part <= partIds.size(); part++) {
                NewEvent event = new NewEvent(
                                job.messageId(),
                                before.nextSeq(),
                                shard,
                                actor,
                                now,
                                new ProviderAccepted(
                                        job.attempt(), state.gateway(), partIds.get(part - 1), part, partIds.size()))
                        .deciding(before, message.row().tenant());
                events.add(event);
                before = MessageFold.evolve(before, event.stored());
            }
            Charge charge =
                    new Charge(job.messageId(), Segments.of(message.row().body()), now);
            // Landing on anything but this attempt's live claim (a timer re-drove the message, or expired it, while the
            // call was out): the newer work is no longer owed once this is recorded, so no publication of its own
            // watches the message. This job's publication must, from now (Timers.check keeps it on the receipt).
            PublicationWake wake = state.phase() != Phase.CLAIMED || state.attempt() != job.attempt()
                    ? new PublicationWake(job.publication(), now)
                    : null;
            beforeResultAppend.accept(events.getFirst()); // nothing in production; a test's competing writer
            if (!appender.append(events, charge, wake).isEmpty()) {
                sent.inc();
                endToEnd.update(Duration.between(message.row().acceptedAt(), now));
                return true;
            }
            // Another writer took the seq (a timer re-drove the message meanwhile): read what happened, decide again.
            state = reader.find(job.messageId()).orElseThrow().state();
        }
        racesGivenUp.inc();
        LOG.warn("acceptance lost {} races in a row message_id={}; left for recovery", MAX_DECISIONS, job.messageId());
        return false;
    }

    private MessageState readQuietly(SendJob job, MessageState fallback) {
        try {
            return reader.find(job.messageId()).orElseThrow().state();
        } catch (RuntimeException e) {
            return fallback;
        }
    }

    /**
     * Appends a result of the claimed attempt unless the message moved on (a timer re-drove it): then it is stale. A
     * result that ends the message (REJECTED, DEAD) carries its final status; a retry sooner than the publication's
     * next check brings that check forward. Returns whether it was recorded: the callers count an outcome (rejected,
     * dead, retried, handed back) only then, so a result given up after its lost races is counted once, as unrecorded.
     */
    private boolean recordUnlessMovedOn(
            SendJob job, MessageRow row, MessageState claimed, MessageEvent result, short shard) {
        String tenant = row.tenant();
        Instant validUntil = row.validUntil();
        MessageState state = claimed;
        for (int i = 0; i < MAX_DECISIONS; i++) {
            if (state.phase() != Phase.CLAIMED || state.attempt() != job.attempt()) {
                LOG.info(
                        "result of an attempt that moved on is dropped message_id={} attempt={} now={}",
                        job.messageId(),
                        job.attempt(),
                        state.phase());
                return false;
            }
            NewEvent event = new NewEvent(job.messageId(), state.nextSeq(), shard, actor, clock.instant(), result)
                    .deciding(state, tenant);
            // The publication's check comes at the retry's time, or at the validity's end when that is sooner: a retry
            // that would come too late is expired by the timer then, without a worker touching it.
            PublicationWake wake = result instanceof AttemptFailed f
                    ? new PublicationWake(job.publication(), earliest(f.nextAttemptAt(), validUntil))
                    : null;
            beforeResultAppend.accept(event); // nothing in production; a test's competing writer (see attach)
            if (!appender.append(List.of(event), null, wake).isEmpty()) {
                return true;
            }
            state = reader.find(job.messageId()).orElseThrow().state();
        }
        LOG.warn(
                "result lost {} races in a row message_id={} attempt={}; the claim deadline brings the message back",
                MAX_DECISIONS,
                job.messageId(),
                job.attempt());
        racesGivenUp.inc();
        unrecorded.inc();
        return false;
    }

    private long unratedPauseLeftMs(String gateway) {
        AtomicLong until = unratedPauseUntilMs.get(gateway);
        return until == null ? 0 : Math.max(0, until.get() - System.currentTimeMillis());
    }

    private static Duration nonNegative(Duration d) {
        return d.isNegative() ? Duration.ZERO : d;
    }

    private static Instant earliest(Instant a, Instant b) {
        return b == null || a.isBefore(b) ? a : b;
    }

    private static StoredEvent stored(NewEvent e) {
        return new StoredEvent(e.messageId(), e.seq(), e.at(), e.actor(), e.event());
    }
}
