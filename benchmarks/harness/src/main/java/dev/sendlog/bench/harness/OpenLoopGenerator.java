package dev.sendlog.bench.harness;

import dev.sendlog.tools.http.Http1Connection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Deque;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * The open-loop load: requests at fixed, evenly spaced times ({@code perSecond} of them a second), each sent at its
 * time whether or not earlier ones were answered, so that a slow answer delays no later request (no coordinated
 * omission). The calling (platform) thread paces; each request runs on a virtual thread of its own over a pooled
 * keep-alive connection, opening another one when none is idle (up to {@link #MAX_CONNECTIONS}). Every latency is
 * taken from the request's scheduled time, not from when it was sent.
 *
 * <p>The generator's own part is measured too: when each request's bytes started out, against its scheduled time. A
 * step whose requests went out at less than 99% of the offered rate says the generator, not the system, fell behind
 * ({@link Offered#achievedPerSecond()}), unless requests had to wait for a connection because the system held all
 * {@link #MAX_CONNECTIONS} unanswered.
 */
final class OpenLoopGenerator {
    /**
     * Requests in flight at most. At the rates of the scenario (3,000 msg/s at most) and a p99 limit of a second,
     * a system holding this many unanswered has left its oldest request waiting well past the limit.
     */
    static final int MAX_CONNECTIONS = 4096;
    /** Between the call and the first scheduled request, for the threads and the first connections. */
    private static final long LEAD_NANOS = 50_000_000L;
    /**
     * An idle connection is reused for this long at most, well within the servers' idle timeouts (30 s for Jetty and
     * the JDK's server), so that no request goes out on a connection the server is closing; older ones are closed.
     */
    private static final long MAX_IDLE_NANOS = 5_000_000_000L;
    /** How long past the end of the schedule plus the p99 limit the generator waits for the last answers. */
    private static final long ANSWER_GRACE_NANOS = 5_000_000_000L;

    /** Where the requests go and what they carry; {@code payloads} and {@code headers} by request number. */
    record Target(
            URI base,
            String path,
            IntFunction<Map<String, String>> headers,
            IntFunction<byte[]> payloads,
            IntPredicate acceptedStatus) {}

    /** A system's {@code POST /v1/messages}, answered 202 with the id that it forwards to the provider. */
    static Target system(String baseUrl, String key, String tag) {
        Map<String, String> headers = Map.of("Authorization", "Bearer " + key);
        return new Target(
                URI.create(baseUrl),
                "/v1/messages",
                i -> headers,
                i -> LoadGenerator.payload(tag, i),
                status -> status == 202);
    }

    /** The provider simulator's own submit, as the systems call it: the generator check against the simulator alone. */
    static Target simulator(String baseUrl, String tag) {
        return new Target(
                URI.create(baseUrl),
                "/v1/submit",
                i -> Map.of("Authorization", "Bearer sim-token", "Idempotency-Key", tag + "-" + i),
                i -> String.format(
                                Locale.ROOT,
                                "{\"to\":\"+49152%08d\",\"body\":\"generator check %d\"," + "\"reference\":\"%s-%d\"}",
                                i,
                                i,
                                tag,
                                i)
                        .getBytes(StandardCharsets.UTF_8),
                status -> status == 200 || status == 201);
    }

    /**
     * What one step offered and got, by request number. {@code scheduledEpochMicros} is each request's scheduled
     * time on the wall clock (to meet the simulator's records); {@code sendLagNanos} from that time until its bytes
     * started out (-1: never sent); {@code answerNanos} from that time until its answer (-1: none); {@code ids} the
     * id of each accepted request (null otherwise). {@code errors} counts refusals and failed requests,
     * {@code unanswered} those still open when the generator stopped waiting, {@code waitedForConnection} those
     * that found all {@link #MAX_CONNECTIONS} in use.
     */
    record Offered(
            double perSecond,
            long[] offsetNanos,
            long[] scheduledEpochMicros,
            long[] sendLagNanos,
            long[] answerNanos,
            String[] ids,
            int errors,
            int unanswered,
            int waitedForConnection,
            int peakConnections) {
        int scheduled() {
            return ids.length;
        }

        int accepted() {
            return (int) Arrays.stream(ids).filter(id -> id != null).count();
        }

        /** The scheduled time of the end of the step: one interval after the last request, on the wall clock. */
        long endEpochMicros() {
            return ids.length == 0 ? 0 : scheduledEpochMicros[ids.length - 1] + Math.round(1e6 / perSecond);
        }

        double achievedPerSecond() {
            return OpenLoopGenerator.achievedPerSecond(perSecond, offsetNanos, sendLagNanos);
        }

        /** The p99 of the send lags of the requests that were sent, in ms. */
        double sendLagP99Ms() {
            return Stats.percentile(
                            Arrays.stream(sendLagNanos).filter(l -> l >= 0).toArray(), 0.99)
                    / 1e6;
        }
    }

    /**
     * The schedule: request {@code i} at {@code i / perSecond} seconds from the start, in nanoseconds, rounded;
     * {@code round(perSecond * seconds)} requests.
     */
    static long[] schedule(double perSecond, double seconds) {
        if (!(perSecond > 0) || !(seconds > 0)) {
            throw new IllegalArgumentException(
                    "rate and length must be positive: " + perSecond + "/s, " + seconds + " s");
        }
        int n = (int) Math.round(perSecond * seconds);
        long[] offsets = new long[n];
        for (int i = 0; i < n; i++) {
            offsets[i] = Math.round(i * 1e9 / perSecond);
        }
        return offsets;
    }

    /**
     * The rate at which requests went out: the requests sent, over the schedule's length ({@code n / perSecond})
     * or, when the last one went out later than its slot, until the end of that slot. A generator that kept up
     * scores the offered rate; one that ended d seconds behind an s-second schedule scores about s / (s + d) of it.
     */
    static double achievedPerSecond(double perSecond, long[] offsetNanos, long[] sendLagNanos) {
        int n = offsetNanos.length;
        double slot = 1e9 / perSecond;
        double end = n * slot;
        int sent = 0;
        for (int i = 0; i < n; i++) {
            if (sendLagNanos[i] >= 0) {
                sent++;
                end = Math.max(end, offsetNanos[i] + sendLagNanos[i] + slot);
            }
        }
        return n == 0 ? Double.NaN : sent / (end / 1e9);
    }

    /**
     * Offers {@code perSecond} requests a second for {@code seconds}, then waits for the answers until the end of
     * the schedule plus {@code p99LimitMillis} plus 5 s, and closes the connections still waiting then (those
     * requests count as unanswered).
     */
    Offered run(Target target, double perSecond, double seconds, long p99LimitMillis) throws InterruptedException {
        long[] offsets = schedule(perSecond, seconds);
        int n = offsets.length;
        byte[][] payloads = new byte[n][];
        for (int i = 0; i < n; i++) {
            payloads[i] = target.payloads().apply(i);
        }
        long[] scheduledMicros = new long[n];
        long[] sendLag = new long[n];
        long[] answer = new long[n];
        Arrays.fill(sendLag, -1);
        Arrays.fill(answer, -1);
        String[] ids = new String[n];
        AtomicInteger errors = new AtomicInteger();
        AtomicInteger unanswered = new AtomicInteger();
        AtomicInteger waited = new AtomicInteger();
        AtomicInteger open = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        Semaphore permits = new Semaphore(MAX_CONNECTIONS);
        Deque<Http1Connection> idle = new ConcurrentLinkedDeque<>();
        Set<Http1Connection> busy = ConcurrentHashMap.newKeySet();
        CountDownLatch done = new CountDownLatch(n);
        boolean[] aborted = {false};
        int readTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, p99LimitMillis + 60_000);

        long anchorNanos = System.nanoTime();
        long anchorMicros = LoadGenerator.now();
        long start = anchorNanos + LEAD_NANOS;
        for (int i = 0; i < n; i++) {
            scheduledMicros[i] = anchorMicros + (start + offsets[i] - anchorNanos) / 1000;
        }
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < n; i++) {
                long due = start + offsets[i];
                for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                    LockSupport.parkNanos(wait);
                }
                int index = i;
                threads.execute(() -> {
                    Http1Connection connection = null;
                    try {
                        if (!permits.tryAcquire()) {
                            waited.incrementAndGet();
                            permits.acquire();
                        }
                        try {
                            synchronized (aborted) {
                                if (aborted[0]) {
                                    unanswered.incrementAndGet();
                                    return;
                                }
                                connection = idle.pollFirst();
                                while (connection != null && connection.idleNanos() > MAX_IDLE_NANOS) {
                                    connection.close();
                                    open.decrementAndGet();
                                    connection = idle.pollFirst();
                                }
                                if (connection == null) {
                                    connection = new Http1Connection(target.base(), readTimeoutMillis);
                                    peak.accumulateAndGet(open.incrementAndGet(), Math::max);
                                }
                                busy.add(connection);
                            }
                            ByteArrayOutputStream body = new ByteArrayOutputStream(128);
                            sendLag[index] = System.nanoTime() - due;
                            try {
                                int status = connection.post(
                                        target.path(), target.headers().apply(index), payloads[index], body);
                                answer[index] = System.nanoTime() - due;
                                ids[index] = target.acceptedStatus().test(status)
                                        ? LoadGenerator.idOf(body.toString(StandardCharsets.UTF_8))
                                        : null;
                                if (ids[index] == null) {
                                    errors.incrementAndGet();
                                }
                            } catch (IOException e) {
                                synchronized (aborted) {
                                    (aborted[0] ? unanswered : errors).incrementAndGet();
                                }
                            }
                        } finally {
                            if (connection != null) {
                                busy.remove(connection);
                                if (connection.isOpen()) {
                                    idle.addFirst(connection);
                                } else {
                                    open.decrementAndGet();
                                }
                            }
                            permits.release();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        unanswered.incrementAndGet();
                    } finally {
                        done.countDown();
                    }
                });
            }
            long deadline = start
                    + (n == 0 ? 0 : offsets[n - 1])
                    + TimeUnit.MILLISECONDS.toNanos(p99LimitMillis)
                    + ANSWER_GRACE_NANOS;
            if (!done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                synchronized (aborted) {
                    aborted[0] = true;
                }
                busy.forEach(Http1Connection::close);
            }
        } finally {
            idle.forEach(Http1Connection::close);
        }
        return new Offered(
                perSecond,
                offsets,
                scheduledMicros,
                sendLag,
                answer,
                ids,
                errors.get(),
                unanswered.get(),
                waited.get(),
                peak.get());
    }
}
