package dev.sendlog.bench.harness;

import dev.sendlog.tools.loadtest.ClosedLoop;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one closed-loop load every system gets, the tools' {@link ClosedLoop}: {@code clients} keep-alive connections,
 * each submitting its next message ({@code POST /v1/messages}) as soon as the previous one is answered, until
 * {@code messages} were sent.
 * For each message it keeps the wall-clock start (epoch microseconds, to meet the simulator's clock), the round
 * trip, and the id from the 202 answer, which every system forwards to the provider as the reference.
 */
final class LoadGenerator {
    private final ClosedLoop loop;

    LoadGenerator(String baseUrl, String key) {
        this.loop = new ClosedLoop(baseUrl, key);
    }

    /** What one load produced, indexed by message number; {@code ids[i]} is null for a refused message. */
    record Load(
            String[] ids,
            long[] startMicros,
            long[] roundTripNanos,
            long firstStartMicros,
            long lastEndMicros,
            int errors) {
        int accepted() {
            return ids.length - errors;
        }
    }

    Load run(int messages, int clients, String tag) throws InterruptedException {
        String[] ids = new String[messages];
        long[] startMicros = new long[messages];
        long[] roundTrips = new long[messages];
        AtomicInteger errors = new AtomicInteger();
        long first = now();
        loop.run(
                clients,
                true,
                n -> n < messages ? new ClosedLoop.Request("/v1/messages", payload(tag, (int) n)) : null,
                (n, start, roundTrip, status, body) -> {
                    int i = (int) n;
                    startMicros[i] = start;
                    roundTrips[i] = roundTrip;
                    ids[i] = status == 202 ? idOf(body.toString(StandardCharsets.UTF_8)) : null;
                    if (ids[i] == null) {
                        errors.incrementAndGet();
                    }
                });
        return new Load(ids, startMicros, roundTrips, first, now(), errors.get());
    }

    static byte[] payload(String tag, int i) {
        return String.format(Locale.ROOT, "{\"to\":\"+49152%08d\",\"body\":\"benchmark %s message %d\"}", i, tag, i)
                .getBytes(StandardCharsets.UTF_8);
    }

    /** The value of the first {@code "id"} field of a JSON answer, or null. */
    static String idOf(String json) {
        int key = json.indexOf("\"id\"");
        if (key < 0) {
            return null;
        }
        int open = json.indexOf('"', json.indexOf(':', key) + 1);
        int close = open < 0 ? -1 : json.indexOf('"', open + 1);
        return close < 0 ? null : json.substring(open + 1, close);
    }

    static long now() {
        return ClosedLoop.nowMicros();
    }
}
