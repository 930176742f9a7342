package dev.sendlog.service.badinput;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.service.api.SubmitParser;
import dev.sendlog.service.log.StorableText;
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
 * free-text field (body, reference, metadata keys and values, Idempotency-Key) are stored exactly as sent, read
 * back exactly by GET, found by a search for exactly that value (and nothing else is), and the same key with the
 * same request replays the same message. As {@code to} such a string is refused with 400 naming the field (it is not
 * a recipient: issue 24 item 17), and a search for it finds nothing. Numbers of every size and form in metadata are
 * stored at their exact value (issue 24 item 8).
 */
class VerbatimStringsTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,MAINTENANCE");

    private static final ObjectMapper JSON = new ObjectMapper();
    static final int GENERATED = Integer.getInteger("sendlog.fuzz.verbatimCases", 300);

    @Test
    void nastyStringsInEveryFieldAreStoredReturnedAndFoundVerbatim() throws Exception {
        long seed = FuzzSeed.of("verbatim-strings");
        List<String> strings = new ArrayList<>(
                Junk.NASTY.stream().filter(s -> StorableText.problem(s) == null).toList());
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

    private static final java.util.regex.Pattern RECIPIENT = java.util.regex.Pattern.compile("^\\+[1-9][0-9]{6,14}$");

    private static void roundTrip(RawHttp http, String s, int n) throws Exception {
        String nastyTo = prefix(s, SubmitParser.MAX_TO);
        String to = "+4917" + String.format("%09d", n);
        RawResponse refused = http.send(RawRequest.post("/v1/messages")
                .header("Authorization", "Bearer client-a")
                .header("Content-Type", "application/json")
                .body("{\"to\":" + Junk.quote(nastyTo) + ",\"body\":\"x\"}")
                .build());
        if (RECIPIENT.matcher(nastyTo).matches()) {
            assertThat(refused.status()).as(refused.toString()).isEqualTo(202);
        } else {
            assertThat(refused.status())
                    .as("to [" + Text.visible(nastyTo) + "]: " + refused)
                    .isEqualTo(400);
            assertThat(refused.json().get("errors").get(0).get("field").asText())
                    .isEqualTo("to");
            assertThat(SERVICE.api()
                            .get("/v1/messages?to=" + UrlJunk.encode(nastyTo), "client-a")
                            .json()
                            .get("items"))
                    .isEmpty();
        }
        String reference = prefix(s, SubmitParser.MAX_REFERENCE);
        String metadata = "{" + Junk.quote(s) + ":" + Junk.quote(s) + ",\"nested\":{\"list\":[" + Junk.quote(s) + "]}}";
        String key = headerSafe(s) + "|" + n;
        if (key.getBytes(StandardCharsets.UTF_8).length > SubmitParser.MAX_IDEMPOTENCY_KEY) {
            key = prefix(key, 20) + "|" + n;
        }
        String body = "{\"to\":" + Junk.quote(to) + ",\"body\":" + Junk.quote(s) + ",\"reference\":"
                + Junk.quote(reference) + ",\"metadata\":" + metadata + "}";
        RawRequest submit = RawRequest.post("/v1/messages")
                .header("Authorization", "Bearer client-a")
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key.getBytes(StandardCharsets.UTF_8))
                .body(body)
                .note("string " + n)
                .build();
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
        assertThat(stored.idempotencyKey().getBytes(StandardCharsets.ISO_8859_1))
                .as(what)
                .isEqualTo(key.getBytes(StandardCharsets.UTF_8));

        RawResponse replay = http.send(submit);
        assertThat(replay.status()).as(what).isEqualTo(202);
        assertThat(replay.header("Idempotent-Replayed")).as(what).isEqualTo("true");
        assertThat(replay.json().get("id").asText()).as(what).isEqualTo(id);

        assertFoundExactly("to", to, id, what);
        assertFoundExactly("reference", reference, id, what);
    }

    /**
     * Issue 24 item 8: generated number literals of every size, sign, scale and exponent in metadata are stored at their
     * exact value: what PostgreSQL holds is what PostgreSQL itself makes of the literal as sent ({@code jsonb}'s own
     * normal form: the exponent applied, the scale kept), never a double's rounding or "Infinity". The same request
     * again replays; the number changed in its last digit is another request (409). A number whose exact digits do
     * not fit in the metadata's 4 KiB is refused, never rounded.
     */
    @Test
    void numbersInMetadataAreStoredAtTheirExactValue() throws Exception {
        long seed = FuzzSeed.of("verbatim-numbers");
        RawHttp http = new RawHttp(SERVICE.api().baseUrl());
        int accepted = 0;
        for (int i = 0; i < GENERATED; i++) {
            Junk junk = new Junk(FuzzSeed.forCase(seed, i));
            String literal = numberLiteral(junk);
            String key = "number-" + i;
            String body = "{\"to\":\"+4916" + String.format("%09d", i) + "\",\"body\":\"n\",\"metadata\":{\"n\":"
                    + literal + ",\"list\":[" + literal + "]}}";
            RawResponse r = http.send(numberRequest(body, key));
            String postgres = postgresNumber(literal);
            String what = "literal " + literal + " (case " + i + ")";
            // Stored as {"list":[n],"n":n}: refused when that is over the metadata's 4 KiB.
            if (2 * postgres.length() + 16 > SubmitParser.MAX_METADATA_BYTES) {
                assertThat(r.status()).as(what + ": " + r).isEqualTo(400);
                continue;
            }
            assertThat(r.status()).as(what + ": " + r).isEqualTo(202);
            accepted++;
            String stored = StoredMessage.read(
                            SERVICE.dataSource(), r.json().get("id").asText())
                    .metadataJson();
            assertThat(stored).as(what).isEqualTo("{\"n\": " + postgres + ", \"list\": [" + postgres + "]}");
            RawResponse replay = http.send(numberRequest(body, key));
            assertThat(replay.header("Idempotent-Replayed")).as(what).isEqualTo("true");
            int last = lastMantissaDigit(literal);
            String changed = literal.substring(0, last)
                    + (literal.charAt(last) == '9' ? '8' : (char) (literal.charAt(last) + 1))
                    + literal.substring(last + 1);
            RawResponse conflict = http.send(numberRequest(body.replace(literal, changed), key));
            // Another request (409), unless the changed number is itself too large to keep (400).
            int expected = 2 * postgresNumber(changed).length() + 16 > SubmitParser.MAX_METADATA_BYTES ? 400 : 409;
            assertThat(conflict.status()).as(what + " changed to " + changed).isEqualTo(expected);
        }
        System.out.println("FUZZ verbatim-numbers cases=" + GENERATED + " accepted=" + accepted);
        assertThat(accepted).isGreaterThan(GENERATED / 2);
    }

    private static RawRequest numberRequest(String body, String key) {
        return RawRequest.post("/v1/messages")
                .header("Authorization", "Bearer client-a")
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .body(body)
                .build();
    }

    /** A JSON number: integers small and huge, decimals long and short, exponents up to far past a double's range. */
    private static String numberLiteral(Junk junk) {
        StringBuilder s = new StringBuilder(junk.chance(0.3) ? "-" : "");
        int digits = junk.pick(1, 1, 2, 5, 17, 19, 20, 40, 300);
        s.append(junk.chance(0.2) ? "0" : Integer.toString(junk.between(1, 9)));
        if (!s.toString().endsWith("0") || s.length() > 2) {
            for (int d = 1; d < digits; d++) {
                s.append(junk.below(10));
            }
        }
        if (junk.chance(0.6)) {
            s.append('.');
            int fraction = junk.pick(1, 2, 3, 17, 25, 60);
            for (int d = 0; d < fraction; d++) {
                s.append(junk.below(10));
            }
        }
        if (junk.chance(0.5)) {
            s.append(junk.pick("e", "E"))
                    .append(junk.pick("", "+", "-"))
                    .append(junk.pick(0, 1, 2, 10, 100, 308, 309, 400, 3000, 5000));
        }
        return s.toString();
    }

    private static int lastMantissaDigit(String literal) {
        int end = literal.length();
        int e = Math.max(literal.indexOf('e'), literal.indexOf('E'));
        if (e >= 0) {
            end = e;
        }
        for (int i = end - 1; i >= 0; i--) {
            if (Character.isDigit(literal.charAt(i))) {
                return i;
            }
        }
        throw new IllegalArgumentException(literal);
    }

    /** What PostgreSQL itself makes of the literal in jsonb (its text form), or a long marker when it is too large. */
    private static String postgresNumber(String literal) throws Exception {
        try (java.sql.Connection c = SERVICE.dataSource().getConnection();
                java.sql.PreparedStatement ps = c.prepareStatement("SELECT (?::jsonb)::text")) {
            ps.setString(1, literal);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        } catch (java.sql.SQLException tooLargeForNumeric) {
            return "x".repeat(SubmitParser.MAX_METADATA_BYTES + 1);
        }
    }

    private static void assertFoundExactly(String field, String value, String id, String what) {
        ApiResponse found =
                SERVICE.api().get("/v1/messages?limit=500&" + field + "=" + UrlJunk.encode(value), "client-a");
        assertThat(found.status()).as(what).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        found.json().get("items").forEach(item -> {
            assertThat(item.get(field).asText())
                    .as(what + ": a search by " + field + " finds only that exact value")
                    .isEqualTo(value);
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
