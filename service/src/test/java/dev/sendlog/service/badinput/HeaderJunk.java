package dev.sendlog.service.badinput;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Header values a client may send: keys right and wrong, odd Idempotency-Keys, content types and accepts. */
final class HeaderJunk {
    static final String CLIENT_A = "client-a";
    static final String CLIENT_B = "client-b";

    private final Junk junk;

    HeaderJunk(Junk junk) {
        this.junk = junk;
    }

    /** Adds an Authorization header (or none); returns the tenant it authenticates as, or null. */
    String authorization(RawRequest.Builder b, double validShare, String... validKeys) {
        if (junk.chance(validShare)) {
            String key = junk.pick(validKeys);
            b.header("Authorization", "Bearer " + key);
            return key.equals(CLIENT_B) ? "globex" : key.equals(CLIENT_A) ? "acme" : "ops";
        }
        switch (junk.below(11)) {
            case 0 -> b.note("no-auth");
            case 1 -> b.header("Authorization", "Bearer wrong-key").note("wrong-key");
            case 2 -> b.header("Authorization", "Bearer ").note("empty-key");
            case 3 -> b.header("Authorization", "Basic Y2xpZW50LWE6eA==").note("basic-auth");
            case 4 ->
                b.header("Authorization", "Bearer " + "k".repeat(junk.between(257, 6000)))
                        .note("huge-key");
            case 5 -> b.header("Authorization", "Bearer client-a extra").note("key-with-extra");
            case 6 ->
                b.header("Authorization", "Bearer " + Junk.NASTY.get(junk.below(20)))
                        .note("nasty-key");
            case 7 ->
                b.header("Authorization", junk.pick("client-a", "Bearer", "Bearer\tclient-b", "Token client-a"))
                        .note("malformed-auth");
            case 8 -> b.header("Authorization", headerBytes(junk.text(30))).note("non-ascii-key");
            case 9 ->
                b.header("Authorization", "Bearer wrong")
                        .header("Authorization", "Bearer client-a")
                        .note("two-auth-headers");
            default -> b.header("Authorization", "Bearer client-A").note("key-in-other-case");
        }
        return null;
    }

    /** Maybe an Idempotency-Key header, often odd. */
    void idempotencyKey(RawRequest.Builder b) {
        if (junk.chance(0.6)) {
            return;
        }
        switch (junk.below(10)) {
            case 0 ->
                b.header("Idempotency-Key", "k".repeat(junk.between(129, 2000))).note("key-too-long");
            case 1 ->
                b.header("Idempotency-Key", "k".repeat(junk.between(9000, 20_000)))
                        .note("key-past-header-limit");
            case 2 -> b.header("Idempotency-Key", headerBytes(junk.text(40))).note("key-unicode-bytes");
            case 3 -> b.header("Idempotency-Key", "").note("key-empty");
            case 4 ->
                b.header(
                                "Idempotency-Key",
                                junk.pick(
                                        "a b",
                                        " lead",
                                        "trail\t",
                                        "\"q\"",
                                        "a,b",
                                        "a;b",
                                        "%00",
                                        "é",
                                        "'; DROP TABLE idempotency_keys; --",
                                        "\\",
                                        "a\tb"))
                        .note("key-odd");
            case 5 -> b.header("Idempotency-Key", new byte[] {'a', 0, 'b'}).note("key-raw-nul");
            case 6 ->
                b.header("Idempotency-Key", new byte[] {'a', (byte) 0x7f, (byte) 0xff, 'b'})
                        .note("key-raw-high-bytes");
            case 7 ->
                b.header("Idempotency-Key", junk.token(8))
                        .header("Idempotency-Key", junk.token(8))
                        .note("two-keys");
            default ->
                b.header("Idempotency-Key", "fuzz-" + junk.token(junk.between(1, 100)))
                        .note("key");
        }
    }

    void contentType(RawRequest.Builder b, double jsonShare) {
        if (junk.chance(jsonShare)) {
            b.header("Content-Type", "application/json");
            return;
        }
        String type = junk.pick(
                "text/plain",
                "application/xml",
                null,
                "application/json; charset=utf-8",
                "application/json; charset=nope",
                "application/json;charset=\"utf-16\"",
                "application/problem+json",
                "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x",
                "garbage",
                "application/",
                "*/*",
                "application/json, text/plain",
                "; ;",
                "application/json; charset=",
                "APPLICATION/JSON",
                "application/json;;",
                "text/json",
                "application/vnd.api+json",
                "application/json; q=x; charset=utf-8");
        if (type != null) {
            b.header("Content-Type", type);
        }
        b.note("content-type=" + type);
    }

    /** Maybe an Accept header, often odd; true when one was added. */
    boolean accept(RawRequest.Builder b) {
        if (junk.chance(0.85)) {
            return false;
        }
        String accept = junk.pick(
                "*/*",
                "text/html",
                "application/xml",
                "application/problem+json",
                "garbage/",
                "application/json;q=0",
                "text/plain, */*;q=0.1",
                "application/json",
                "",
                "*/*;q=x");
        b.header("Accept", accept).note("accept=" + accept);
        return true;
    }

    /** Mostly a correct Content-Length, sometimes chunked, rarely a broken length. */
    void framing(RawRequest.Builder b) {
        if (junk.chance(0.85)) {
            return;
        }
        RawRequest.Framing f = junk.chance(0.7)
                ? RawRequest.Framing.CHUNKED
                : junk.pick(
                        RawRequest.Framing.SHORT_LENGTH,
                        RawRequest.Framing.INVALID_LENGTH,
                        RawRequest.Framing.TWO_LENGTHS);
        b.framing(f);
    }

    /** The UTF-8 bytes of {@code text} as a header value: line breaks dropped, everything else as is. */
    static byte[] headerBytes(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte x : text.getBytes(StandardCharsets.UTF_8)) {
            if (x != '\r' && x != '\n') {
                out.write(x);
            }
        }
        return out.toByteArray();
    }
}
