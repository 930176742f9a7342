package dev.sendlog.service.badinput;

import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.receipts.Vocabulary;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

/**
 * Provider callbacks for both gateways: receipts for real messages and for none, every status word of both
 * vocabularies and random ones, timestamps right, wrong and extreme in both formats, ids and references of the
 * other gateway, missing and mistyped fields, bodies that are not JSON at all, too big, or in another encoding;
 * signed right, with the other gateway's secret, or not at all. The statuses a case must get are known: 200 only
 * for a body of at most 64 KiB, signed with its own gateway's secret, to a configured gateway.
 */
final class CallbackCases {
    static final String[] GATEWAYS = {"sim", "other"};
    private static final List<String> SMPP =
            List.copyOf(Vocabulary.smpp().statuses().keySet());
    private static final List<String> JSON =
            List.copyOf(Vocabulary.json().statuses().keySet());
    /** Few, so that the same receipt comes twice and must be recorded as a duplicate. */
    private static final String[] SMPP_TIMES = {"2611300931", "261130093105", "2611300932", "2612011200"};

    private static final String[] ISO_TIMES = {
        "2026-11-30T09:31:05Z", "2026-11-30T10:31:05+01:00", "2026-11-30T09:32:00.123Z"
    };
    private static final String[] BROKEN_TIMES = {
        "2613300931",
        "2611310931",
        "261130093",
        "26113009310",
        "2611302461",
        "abcdefghij",
        "",
        " ",
        "2026-11-30T09:31:05",
        "2026-11-30 09:31:05Z",
        "2026-02-30T00:00:00Z",
        "+999999999-12-31T23:59:59Z",
        "-999999999-01-01T00:00:00+18:00",
        "+999999999-12-31T23:59:59.999999999-18:00",
        "2026-11-30T09:31:05.1234567891Z",
        "1764495065",
        "0000-01-01T00:00:00Z",
        "9999-12-31T23:59:59.999999999-18:00",
        "2026-11-30T09:31:05+25:00",
        "261130",
        "99999999999999",
        "0000000000",
        "2611300931Z",
        "\u0661\u0662\u0663"
    };

    private final Junk junk;
    private final List<Sent> sent;
    private final List<String> notes = new ArrayList<>();

    CallbackCases(Junk junk, List<Sent> sent) {
        this.junk = junk;
        this.sent = sent;
    }

    static String secretOf(String gateway) {
        return gateway + "-secret";
    }

    FuzzCase next() {
        String gateway = junk.pick(GATEWAYS);
        boolean known = junk.chance(0.95);
        String path = known
                ? gateway
                : junk.pick(
                        "nope",
                        "SIM",
                        "Other",
                        "%00",
                        "sim%2Fx",
                        "sim%20",
                        UrlJunk.encode(junk.text(10)),
                        "x".repeat(300));
        byte[] body = body(gateway);
        boolean oversize = body.length > 64 * 1024;
        RawRequest.Builder b =
                RawRequest.post("/v1/callbacks/" + path).note(known ? "gateway " + gateway : "unknown gateway");
        Signature signature = signature(b, gateway, body);
        boolean oddContentType = !junk.chance(0.85);
        if (oddContentType) {
            new HeaderJunk(junk).contentType(b, 0);
        } else {
            b.header("Content-Type", "application/json");
        }
        RawRequest.Framing framing = junk.chance(0.9) ? RawRequest.Framing.LENGTH : RawRequest.Framing.CHUNKED;
        b.framing(framing).body(body).note(String.join(" ", notes));
        Set<Integer> allowed = new java.util.HashSet<>();
        if (oversize) {
            allowed.add(413);
            // A chunked body (no length to judge it by) to an unknown gateway or without a right signature may be
            // refused for that before its size is known: the gateway and the signature's form are checked before the
            // body is read (issue 24 item 5).
            if (!known) {
                allowed.add(404);
            } else if (signature != Signature.RIGHT) {
                allowed.add(401);
            }
        } else if (!known) {
            allowed.add(404);
        } else {
            allowed.add(signature == Signature.RIGHT ? 200 : 401);
        }
        // Jetty refuses a path or header it cannot parse, and Jersey a Content-Type it cannot parse, before any of our
        // code.
        if (!known || signature == Signature.UNPARSEABLE || oddContentType) {
            allowed.add(400);
        }
        return new FuzzCase(FuzzCase.Kind.CALLBACK, b.build(), Set.copyOf(allowed), null);
    }

    private enum Signature {
        RIGHT,
        WRONG,
        UNPARSEABLE
    }

    /** Signs the body, or signs it wrong, or not at all. */
    private Signature signature(RawRequest.Builder b, String gateway, byte[] body) {
        String other = gateway.equals("sim") ? "other" : "sim";
        if (junk.chance(0.85)) {
            String signature = CallbackSignature.sign(secretOf(gateway), body);
            b.header("X-Signature", junk.chance(0.1) ? " " + signature.toUpperCase(Locale.ROOT) + " " : signature);
            return Signature.RIGHT;
        }
        switch (junk.below(7)) {
            case 0 ->
                b.header("X-Signature", CallbackSignature.sign(secretOf(other), body))
                        .note("other gateway's signature");
            case 1 -> b.note("no signature");
            case 2 ->
                b.header("X-Signature", CallbackSignature.sign("wrong", body)).note("wrong secret");
            case 3 ->
                b.header(
                                "X-Signature",
                                CallbackSignature.sign(secretOf(gateway), body).replace("sha256=", "sha1="))
                        .note("wrong scheme");
            case 4 ->
                b.header(
                                "X-Signature",
                                CallbackSignature.sign(
                                        secretOf(gateway), java.util.Arrays.copyOf(body, body.length + 1)))
                        .note("signature of other bytes");
            case 5 -> {
                b.header("X-Signature", HeaderJunk.headerBytes(junk.text(70))).note("junk signature");
                return Signature.UNPARSEABLE;
            }
            default -> b.header("X-Signature", "").note("empty signature");
        }
        return Signature.WRONG;
    }

    private byte[] body(String gateway) {
        notes.clear();
        if (junk.chance(0.12)) {
            return notAReceipt();
        }
        List<String> members = new ArrayList<>();
        Sent about = junk.pick(sent);
        Sent sameGateway = sent.stream()
                .filter(s -> s.gateway().equals(gateway))
                .skip(junk.below(4))
                .findFirst()
                .orElse(about);
        Sent target = junk.chance(0.7) ? sameGateway : about;
        field(members, "id", () -> switch (junk.below(20)) {
            case 0 -> Junk.quote("p" + junk.below(1000));
            case 1 -> Junk.quote(junk.text(12));
            case 2 -> Junk.quote(junk.unstorableText());
            case 3 -> Junk.quote("p".repeat(junk.pick(256, 257, 5000)));
            default -> Junk.quote(target.providerId());
        });
        field(members, "reference", () -> switch (junk.below(16)) {
            case 0 -> Junk.quote(junk.pick(sent).messageId());
            case 1 -> Junk.quote(UUID.randomUUID().toString());
            case 2 ->
                Junk.quote(junk.pick(
                        "1-1-1-1-1", "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"));
            case 3 -> Junk.quote(junk.text(20));
            case 4 -> Junk.quote(target.messageId().toUpperCase(Locale.ROOT));
            default -> Junk.quote(target.messageId());
        });
        boolean smpp = gateway.equals("sim") != junk.chance(0.1);
        field(members, "status", () -> switch (junk.below(16)) {
            case 0 -> Junk.quote(junk.pick(smpp ? JSON : SMPP));
            case 1 ->
                Junk.quote(junk.pick(
                        "delivrd", "DELIVERED", " DELIVRD", "DELIVRD ", "Delivered", "DELIVRD\u0000", "MYSTERY_STATE"));
            case 2 -> Junk.quote(junk.text(15));
            case 3 -> Junk.quote(junk.unstorableText());
            default -> Junk.quote(junk.pick(smpp ? SMPP : JSON));
        });
        field(members, "timestamp", () -> switch (junk.below(16)) {
            case 0, 1 -> Junk.quote(junk.pick(BROKEN_TIMES));
            case 2 -> Junk.quote(junk.pick(smpp ? ISO_TIMES : SMPP_TIMES));
            case 3 -> Junk.quote(junk.unstorableText());
            default -> Junk.quote(junk.pick(smpp ? SMPP_TIMES : ISO_TIMES));
        });
        if (junk.chance(0.3)) {
            field(
                    members,
                    "errorCode",
                    () -> junk.chance(0.3)
                            ? Junk.quote(junk.unstorableText())
                            : Junk.quote(junk.pick(
                                    "000", "001", "0x0000000b", junk.text(20), "e".repeat(junk.between(200, 20_000)))));
        }
        if (junk.chance(0.1)) {
            members.add(
                    junk.below(members.size() + 1),
                    Junk.quote(junk.pick("extra", "id", "status", junk.text(8))) + ":" + junk.notAString());
            notes.add("extra or duplicated field");
        }
        String json = "{" + String.join(",", members) + "}";
        if (junk.chance(0.05)) {
            notes.add("invalid utf-8");
            return junk.withInvalidUtf8(json);
        }
        if (junk.chance(0.03)) {
            notes.add("utf-16");
            return json.getBytes(StandardCharsets.UTF_16);
        }
        return json.getBytes(StandardCharsets.UTF_8);
    }

    /** Sets the field to the usual value, or leaves it out, or gives it a value of another type. */
    private void field(List<String> members, String name, java.util.function.Supplier<String> value) {
        int roll = junk.below(100);
        if (roll < 3) {
            notes.add("missing " + name);
        } else if (roll < 8) {
            members.add(Junk.quote(name) + ":" + junk.notAString());
            notes.add("mistyped " + name);
        } else {
            members.add(Junk.quote(name) + ":" + value.get());
        }
    }

    private byte[] notAReceipt() {
        switch (junk.below(9)) {
            case 0 -> {
                notes.add("random bytes");
                return junk.bytes(junk.between(1, 3000));
            }
            case 1 -> {
                notes.add("empty");
                return new byte[0];
            }
            case 2 -> {
                notes.add("nested 10000");
                return junk.nested(10_000).getBytes(StandardCharsets.UTF_8);
            }
            case 3 -> {
                notes.add("over 64 KiB");
                return ("{\"id\":\"" + "p".repeat(junk.between(64 * 1024, 150 * 1024)) + "\"}")
                        .getBytes(StandardCharsets.UTF_8);
            }
            case 4 -> {
                notes.add("top level not an object");
                return junk.pick("[]", "null", "\"DELIVRD\"", "42", "[{\"id\":\"p1\"}]")
                        .getBytes(StandardCharsets.UTF_8);
            }
            case 5 -> {
                notes.add("smpp text receipt");
                return ("id:" + junk.pick(sent).providerId()
                                + " sub:001 dlvrd:001 submit date:2611300931 done date:2611300932 stat:DELIVRD err:000")
                        .getBytes(StandardCharsets.UTF_8);
            }
            case 6 -> {
                notes.add("truncated json");
                return "{\"id\":\"p1\",\"status\":\"DELIV".getBytes(StandardCharsets.UTF_8);
            }
            case 7 -> {
                notes.add("trailing data");
                Sent s = junk.pick(sent);
                return ("{\"id\":\"" + s.providerId() + "\",\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"} {}")
                        .getBytes(StandardCharsets.UTF_8);
            }
            default -> {
                notes.add("nul bytes");
                return new byte[] {0, 0, '{', 0, '}'};
            }
        }
    }
}
