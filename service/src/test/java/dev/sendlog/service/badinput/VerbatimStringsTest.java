package dev.sendlog.service.badinput;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.service.api.SubmitParser;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SQL metacharacters, LIKE wildcards, backslashes, quotes, every script, emoji and invisible characters in every
 * string field (to, body, reference, metadata keys and values, Idempotency-Key) are stored exactly as sent, read
 * back exactly by GET, found by a search for exactly that value (and nothing else is), and the same key with the
 * same request replays the same message.
 */
class VerbatimStringsTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,MAINTENANCE");

    private static final ObjectMapper JSON = new ObjectMapper();
    static final int GENERATED = Integer.getInteger("sendlog.fuzz.verbatimCases", 300);

    @Test
    void nastyStringsInEveryFieldAreStoredReturnedAndFoundVerbatim() throws Exception {
        long seed = FuzzSeed.of("verbatim-strings");
        List<String> strings = new ArrayList<>(Junk.NASTY.stream().filter(s -> SubmitParser.unstorable(s) == null).toList());
        for (int i = 0; i < GENERATED; i++) {
            strings.add(new Junk(FuzzSeed.forCase(seed, i)).text(60));
        }
        RawHttp http = new RawHttp(SERVICE.api().baseUrl());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < strings.size(); i++) {
                int n = i;
                done.add(pool.submit(() -> {
                    roundTrip(http, strings.get(n), n);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        System.out.println("FUZZ verbatim-strings cases=" + strings.size());
        assertThat(strings).hasSizeGreaterThan(GENERATED);
    }

    private static void roundTrip(RawHttp http, String s, int n) throws Exception {
        String to = prefix(s, SubmitParser.MAX_TO);
        String reference = prefix(s, SubmitParser.MAX_REFERENCE);
        String metadata = "{" + Junk.quote(s) + ":" + Junk.quote(s) + ",\"nested\":{\"list\":[" + Junk.quote(s) + "]}}";
        String key = headerSafe(s) + "|" + n;
        if (key.getBytes(StandardCharsets.UTF_8).length > SubmitParser.MAX_IDEMPOTENCY_KEY) {
            key = prefix(key, 20) + "|" + n;
        }
        String body = "{\"to\":" + Junk.quote(to) + ",\"body\":" + Junk.quote(s) + ",\"reference\":" + Junk.quote(reference)
                + ",\"metadata\":" + metadata + "}";
        RawRequest submit = RawRequest.post("/v1/messages").header("Authorization", "Bearer client-a")
                .header("Content-Type", "application/json").header("Idempotency-Key", key.getBytes(StandardCharsets.UTF_8))
                .body(body).note("string " + n).build();
        String what = "string " + n + " [" + Text.visible(s) + "]";

        RawResponse accepted = http.send(submit);
        assertThat(accepted.status()).as(what + ": " + accepted).isEqualTo(202);
        String id = accepted.json().get("id").asText();

        JsonNode one = SERVICE.api().get("/v1/messages/" + id, "client-a").json();
        assertThat(one.get("to").asText()).as(what).isEqualTo(to);
        assertThat(one.get("reference").asText()).as(what).isEqualTo(reference);

        StoredMessage stored = StoredMessage.read(SERVICE.dataSource(), id);
        assertThat(stored.recipient()).as(what).isEqualTo(to);
        assertThat(stored.body()).as(what).isEqualTo(s);
        assertThat(stored.reference()).as(what).isEqualTo(reference);
        assertThat(JSON.readTree(stored.metadataJson())).as(what).isEqualTo(JSON.readTree(metadata));
        // A header value is octets, which Jetty reads as ISO-8859-1: the stored key holds exactly the bytes sent.
        assertThat(stored.idempotencyKey().getBytes(StandardCharsets.ISO_8859_1)).as(what)
                .isEqualTo(key.getBytes(StandardCharsets.UTF_8));

        RawResponse replay = http.send(submit);
        assertThat(replay.status()).as(what).isEqualTo(202);
        assertThat(replay.header("Idempotent-Replayed")).as(what).isEqualTo("true");
        assertThat(replay.json().get("id").asText()).as(what).isEqualTo(id);

        assertFoundExactly("to", to, id, what);
        assertFoundExactly("reference", reference, id, what);
    }

    private static void assertFoundExactly(String field, String value, String id, String what) {
        ApiResponse found = SERVICE.api().get("/v1/messages?limit=500&" + field + "=" + UrlJunk.encode(value), "client-a");
        assertThat(found.status()).as(what).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        found.json().get("items").forEach(item -> {
            assertThat(item.get(field).asText()).as(what + ": a search by " + field + " finds only that exact value").isEqualTo(value);
            ids.add(item.get("id").asText());
        });
        assertThat(ids).as(what).contains(id);
    }

    private static String prefix(String s, int codePoints) {
        return s.codePointCount(0, s.length()) <= codePoints ? s : s.substring(0, s.offsetByCodePoints(0, codePoints));
    }

    /**
     * The string as a header value can carry it: no control characters (HTTP forbids them) and no whitespace at the
     * ends (HTTP strips it).
     */
    private static String headerSafe(String s) {
        StringBuilder out = new StringBuilder();
        s.codePoints().filter(c -> c >= 0x20 && c != 0x7f).forEach(out::appendCodePoint);
        String safe = out.toString().strip();
        return prefix(safe.isEmpty() ? "k" : safe, 100);
    }
}
