package dev.sendlog.service.badinput;

import java.io.UncheckedIOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Runs generated cases against the service on a few threads: generates case {@code i} from its own random, sends
 * it, checks the answer against {@link ProblemProperty}, the status the case expects (if any) and a check of the
 * caller's, and records every violation. Returns how many cases ran.
 */
final class FuzzRun {
    private FuzzRun() {}

    static int run(
            long seed,
            int cases,
            int threads,
            RawHttp http,
            Failures failures,
            Function<Junk, FuzzCase> generate,
            BiFunction<FuzzCase, RawResponse, String> check)
            throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicInteger ran = new AtomicInteger();
        Slowest slowest = new Slowest();
        for (int i = 0; i < cases; i++) {
            long caseNumber = i;
            pool.execute(() -> {
                FuzzCase c = null;
                try {
                    c = generate.apply(new Junk(FuzzSeed.forCase(seed, caseNumber)));
                    long start = System.nanoTime();
                    RawResponse r = http.send(c.request());
                    slowest.offer((System.nanoTime() - start) / 1_000_000, caseNumber, c.request());
                    String why = ProblemProperty.violation(r);
                    if (why == null && !c.allowed().isEmpty() && !c.allowed().contains(r.status())) {
                        why = "expected one of " + c.allowed() + ", got " + r.status();
                    }
                    if (why == null) {
                        why = check.apply(c, r);
                    }
                    if (why != null) {
                        failures.add(caseNumber, why, c.request(), r);
                    }
                } catch (UncheckedIOException e) {
                    failures.add(caseNumber, "no answer: " + e.getCause(), c.request(), null);
                } catch (RuntimeException e) {
                    failures.add(
                            caseNumber,
                            (c == null ? "generating the case threw " : "checking the answer threw ") + e,
                            c == null ? null : c.request(),
                            null);
                }
                ran.incrementAndGet();
            });
        }
        pool.shutdown();
        if (!pool.awaitTermination(10, TimeUnit.MINUTES)) {
            pool.shutdownNow();
            throw new IllegalStateException("the fuzz run did not finish in 10 minutes");
        }
        System.out.println(slowest);
        return ran.get();
    }

    /** The few slowest cases, printed so a run that gets slow shows why. */
    private static final class Slowest {
        private final java.util.TreeMap<Long, String> cases = new java.util.TreeMap<>();

        synchronized void offer(long millis, long caseNumber, RawRequest request) {
            cases.put(
                    millis * 1_000_000 + caseNumber % 1_000_000,
                    "case " + caseNumber + " " + millis + " ms: " + request.method() + " "
                            + Text.clip(request.target(), 80) + " [" + request.describe() + "] " + request.framing());
            if (cases.size() > 5) {
                cases.pollFirstEntry();
            }
        }

        @Override
        public synchronized String toString() {
            return "FUZZ slowest cases:\n  "
                    + String.join("\n  ", cases.descendingMap().values());
        }
    }
}
