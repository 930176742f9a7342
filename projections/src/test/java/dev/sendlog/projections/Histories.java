package dev.sendlog.projections;

import dev.sendlog.events.Accepted;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.events.Published;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.ReceiptKind;
import dev.sendlog.events.Rejected;
import dev.sendlog.events.Resolved;
import dev.sendlog.events.Scheduled;
import dev.sendlog.events.StoredEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;

/**
 * Generates valid message histories the way the pipeline produces them: at each step one of the
 * writers that could act (poller, worker, provider, timer, callback worker, support) is picked at
 * random and appends what {@link Decisions} tells it to. Seeded, so a failing case can be replayed.
 */
public final class Histories {
    static final Limits LIMITS = new Limits(3, 4, Duration.ofSeconds(30), Duration.ofSeconds(30));
    private static final String[] STATUSES = {"ENROUTE", "ACCEPTD", "DELIVRD", "UNDELIV", "EXPIRED", "UNKNOWN"};
    /** What a resolution may apply; null stands for a discard. */
    private static final ReceiptKind[] RESOLVABLE = {
        ReceiptKind.DELIVERED, ReceiptKind.UNDELIVERED, ReceiptKind.UNKNOWN, null
    };

    private final Random random;
    private final List<StoredEvent> events = new ArrayList<>();
    private final UUID id;
    private Instant now = Instant.parse("2026-11-30T00:00:00Z");
    private MessageState state;
    /** The message's validity, or null: half the histories have one, a few minutes after acceptance. */
    private final Instant validUntil;

    Histories(long seed, UUID messageId) {
        this.random = new Random(seed);
        UUID derived = new UUID(
                0x0192_f3a0_0000_7000L | random.nextInt(0xFFF), 0x8000_0000_0000_0000L | random.nextLong() >>> 2);
        this.id = messageId == null ? derived : messageId;
        // Drawn after the id: the first draws of Random seeded with small seeds hardly vary.
        this.validUntil = random.nextInt(2) == 0 ? null : now.plusSeconds(1 + random.nextInt(600));
    }

    /** A valid history of one message, chosen by {@code seed}. */
    public static List<StoredEvent> generate(long seed, int maxSteps) {
        return generate(seed, maxSteps, null);
    }

    /** As above, for the given message id (null: one derived from the seed). */
    public static List<StoredEvent> generate(long seed, int maxSteps, UUID messageId) {
        Histories h = new Histories(seed, messageId);
        h.append("api", new Accepted("demo", "sim"));
        if (h.random.nextInt(3) == 0) {
            // A scheduled message (issue 26): its sendAt up to ten minutes ahead, before or after its validity's end.
            h.append("api", new Scheduled(h.now.plusSeconds(1 + h.random.nextInt(600))));
        }
        for (int i = 0; i < maxSteps; i++) {
            if (!h.step()) {
                break;
            }
        }
        return h.events;
    }

    private boolean step() {
        now = now.plus(Duration.ofMillis(1 + random.nextInt(60_000)));
        List<Runnable> options = new ArrayList<>();
        // The poller publishes an attempt while it is owed (in the log: a work event not yet published).
        if (state.phase() == Phase.PENDING) {
            options.add(() -> append("poller-1", new Published(state.attempt(), 1, now.plus(LIMITS.confirmTimeout()))));
        }
        // A worker's claim, or EXPIRED in its place once the validity has passed (the send worker's rule).
        Decisions.claim(state, state.workSeq(), state.attempt(), "worker-1", now, LIMITS)
                .ifPresent(c -> options.add(() -> append(
                        "worker-1",
                        Decisions.expiry(state, validUntil, now)
                                .<MessageEvent>map(x -> x)
                                .orElse(c))));
        // A client's cancel, while no worker holds the message.
        Decisions.cancel(state).ifPresent(c -> {
            if (random.nextInt(6) == 0) {
                options.add(() -> append("api", c));
            }
        });
        if (validUntil != null && state.isWaiting()) {
            // The timer at the validity's end.
            options.add(() -> {
                now = now.isBefore(validUntil) ? validUntil : now;
                Decisions.onDeadline(state, validUntil, now, LIMITS).ifPresent(e -> append("timer", e));
            });
        }
        if (state.phase() == Phase.CLAIMED) {
            options.add(
                    () -> append("worker-1", new ProviderAccepted(state.attempt(), "sim", "p" + random.nextInt(100))));
            options.add(() -> append(
                    "worker-1",
                    Decisions.afterTransientFailure(state, "503", now.plusSeconds(random.nextInt(60)), LIMITS)));
            if (random.nextInt(10) == 0) {
                options.add(() -> append("worker-1", new Rejected(Rejected.STAGE_PROVIDER, "422 invalid number")));
            }
        }
        if (Decisions.shouldRecordAcceptance(state) && state.phase() != Phase.CLAIMED && random.nextInt(8) == 0) {
            // A late answer from an earlier attempt, recorded after a re-drive moved on.
            options.add(
                    () -> append("worker-2", new ProviderAccepted(state.attempt(), "sim", "p" + random.nextInt(100))));
        }
        if (state.deadline() != null) {
            options.add(() -> {
                now = state.deadline().at();
                Decisions.onDeadline(state, validUntil, now, LIMITS).ifPresent(e -> append("timer", e));
            });
        }
        ReceiptKind kind = ReceiptKind.values()[random.nextInt(4)];
        String providerStatus = STATUSES[random.nextInt(STATUSES.length)];
        Instant providerTime = now.minusSeconds(random.nextInt(5));
        int inboxId = random.nextInt(1000);
        // A third asked by a status query (issue 32), from the same draws: the random sequence is the one it always
        // was.
        Receipt receipt = new Receipt(
                kind,
                "sim",
                "p1",
                providerStatus,
                providerTime,
                null,
                inboxId,
                inboxId % 3 == 0 ? dev.sendlog.events.ReceiptSource.QUERY : dev.sendlog.events.ReceiptSource.CALLBACK);
        if (Decisions.receipt(state, receipt) == ReceiptDecision.APPEND) {
            options.add(() -> append("callbacks-1", receipt));
        }
        Decisions.reconcile(state, now.plusSeconds(1), "PT48H")
                .ifPresent(u -> options.add(() -> append("reconciler", u)));
        if (state.providerId() != null && random.nextInt(6) == 0) {
            // Support resolves parked input of a message the provider has: applies a status, or discards it.
            ReceiptKind applied = RESOLVABLE[random.nextInt(RESOLVABLE.length)];
            options.add(() -> append(
                    "support:alice",
                    applied == null
                            ? new Resolved(events.size(), Resolved.Action.DISCARD, null, "noise")
                            : new Resolved(events.size(), Resolved.Action.APPLY, applied, null)));
        }
        Optional.of(state)
                .flatMap(Decisions::adminRedrive)
                .ifPresent(r -> options.add(() -> append("support:alice", r)));
        if (options.isEmpty()) {
            return false;
        }
        options.get(random.nextInt(options.size())).run();
        return true;
    }

    private void append(String actor, MessageEvent event) {
        // A publication takes the seq its work event left for it; anything else takes the next seq, which skips that
        // slot while the work is unpublished (a claim whose publication the history does not show, as the log allows).
        int seq = state == null
                ? 1
                : event instanceof Published || event instanceof Scheduled ? state.seq() + 1 : state.nextSeq();
        StoredEvent stored = new StoredEvent(id, seq, now, actor, event);
        state = state == null ? MessageFold.fold(List.of(stored)) : MessageFold.evolve(state, stored);
        events.add(stored);
    }
}
