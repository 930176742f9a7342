package dev.sendlog.service.badinput;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Bodies for POST /v1/messages and /batch: a valid message, then up to three field mutations (a wrong type, a
 * missing or unknown field, a duplicated key, unstorable or huge text, deep nesting, odd metadata), then perhaps
 * a mutation of the whole body (truncated, invalid UTF-8, random bytes, empty, another top-level type, trailing
 * data, a byte order mark, UTF-16).
 */
final class SubmitBodies {
    private static final String[] FIELDS = {"to", "body", "reference", "gateway", "metadata"};

    private final Junk junk;
    private final List<String> notes = new ArrayList<>();

    SubmitBodies(Junk junk) {
        this.junk = junk;
    }

    /** What the last body's mutations were. */
    String notes() {
        return String.join(" ", notes);
    }

    byte[] single() {
        notes.clear();
        return wholeBody(message(false));
    }

    byte[] batch() {
        notes.clear();
        List<String> members = new ArrayList<>();
        members.add("\"messages\":" + messages());
        if (junk.chance(0.05)) {
            members.add(Junk.quote(junk.pick("message", "idempotencyKey", junk.text(6))) + ":" + junk.notAString());
            notes.add("unknown-top-field");
        }
        if (junk.chance(0.03)) {
            members.add("\"messages\":[]");
            notes.add("duplicate-messages-key");
        }
        return wholeBody("{" + String.join(",", members) + "}");
    }

    private String messages() {
        switch (junk.below(20)) {
            case 0 -> {
                notes.add("messages-not-array");
                return junk.notAString();
            }
            case 1 -> {
                notes.add("messages-empty");
                return "[]";
            }
            case 2 -> {
                notes.add("messages-1001");
                return "[" + String.join(",", java.util.Collections.nCopies(1001, "{\"to\":\"+4912\",\"body\":\"b\"}"))
                        + "]";
            }
            case 3 -> {
                notes.add("messages-items-wrong-type");
                return "[" + junk.notAString() + "," + message(true) + "]";
            }
            default -> {
                int n = junk.chance(0.8) ? junk.between(1, 5) : junk.between(6, 60);
                List<String> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(message(true));
                }
                return "[" + String.join(",", items) + "]";
            }
        }
    }

    /** One message object, valid before its mutations. */
    String message(boolean batchItem) {
        List<String[]> fields = new ArrayList<>();
        fields.add(new String[] {Junk.quote("to"), Junk.quote("+49151" + (1_000_000 + junk.below(9_000_000)))});
        fields.add(new String[] {Junk.quote("body"), Junk.quote(junk.text(junk.chance(0.9) ? 40 : 1600))});
        if (junk.chance(0.5)) {
            fields.add(new String[] {Junk.quote("reference"), Junk.quote(junk.text(junk.chance(0.9) ? 20 : 128))});
        }
        if (junk.chance(0.3)) {
            fields.add(new String[] {Junk.quote("gateway"), Junk.quote(junk.pick("sim", "other"))});
        }
        if (junk.chance(0.3)) {
            fields.add(new String[] {Junk.quote("metadata"), metadata()});
        }
        if (junk.chance(0.15)) {
            // A valid validity, one way or the other (issue 26).
            fields.add(
                    junk.chance(0.5)
                            ? new String[] {Junk.quote("ttlSeconds"), Integer.toString(junk.between(1, 259_200))}
                            : new String[] {
                                Junk.quote("validUntil"),
                                Junk.quote(java.time.Instant.now()
                                        .plusSeconds(junk.between(600, 250_000))
                                        .toString())
                            });
        }
        if (junk.chance(0.1)) {
            // A valid sendAt (issue 26): up to 30 days ahead, or in the past (meaning now).
            fields.add(new String[] {
                Junk.quote("sendAt"),
                Junk.quote(java.time.Instant.now()
                        .plusSeconds(junk.between(-86_400, 29 * 86_400))
                        .toString())
            });
        }
        if (junk.chance(0.1)) {
            // A valid priority (issue 26).
            fields.add(new String[] {Junk.quote("priority"), Junk.quote(junk.pick("high", "normal"))});
        }
        if (batchItem && junk.chance(0.3)) {
            fields.add(new String[] {Junk.quote("idempotencyKey"), Junk.quote(idempotencyKey())});
        }
        int mutations = junk.chance(batchItem ? 0.85 : 0.45) ? 0 : junk.between(1, 3);
        for (int i = 0; i < mutations; i++) {
            mutate(fields, batchItem);
        }
        StringBuilder s = new StringBuilder("{");
        for (int i = 0; i < fields.size(); i++) {
            s.append(i == 0 ? "" : ",")
                    .append(junk.chance(0.05) ? " \n\t" : "")
                    .append(fields.get(i)[0])
                    .append(':')
                    .append(fields.get(i)[1]);
        }
        return s.append('}').toString();
    }

    private String idempotencyKey() {
        return switch (junk.below(6)) {
            case 0 -> junk.text(20);
            case 1 -> "k".repeat(junk.between(129, 400));
            case 2 -> "";
            case 3 -> junk.unstorableText();
            default -> junk.token(junk.between(1, 40));
        };
    }

    private void mutate(List<String[]> fields, boolean batchItem) {
        String field = junk.pick(FIELDS);
        switch (junk.below(18)) {
            case 17 -> {
                // Issue 26: a sender id of the wrong shape (too long, no letter and not a number or short code, a
                // character outside [A-Za-z0-9 ], empty, not a string) is a 400 naming from, never sent as something
                // else.
                fields.removeIf(f -> f[0].equals(Junk.quote("from")));
                fields.add(new String[] {
                    Junk.quote("from"),
                    junk.pick(
                            Junk.quote("TwelveLetter"),
                            Junk.quote("A".repeat(40)),
                            Junk.quote(""),
                            Junk.quote("   "),
                            Junk.quote("12"),
                            Junk.quote("123456789"),
                            Junk.quote("+0151123456"),
                            Junk.quote("+49151"),
                            Junk.quote("Caf\u00e9"),
                            Junk.quote("Shop!"),
                            Junk.quote("Shop\n"),
                            Junk.quote("+4915112345678901"),
                            "123",
                            "true",
                            "[]",
                            "{}")
                });
                notes.add("bad-sender");
            }
            case 16 -> {
                // Issue 26: a priority is exactly "high" or "normal"; any other spelling or type is a 400 naming it.
                fields.removeIf(f -> f[0].equals(Junk.quote("priority")));
                fields.add(new String[] {
                    Junk.quote("priority"),
                    junk.pick(
                            Junk.quote("urgent"),
                            "1",
                            Junk.quote("HIGH"),
                            Junk.quote("Normal"),
                            Junk.quote(" high"),
                            Junk.quote(""),
                            Junk.quote("low"),
                            "true",
                            "0",
                            "[]",
                            "{}",
                            "[\"high\"]",
                            Junk.quote("p-" + junk.text(6)))
                });
                notes.add("bad-priority");
            }
            case 15 -> {
                // Issue 26: a sendAt more than 30 days ahead, unparseable or not a string is a 400 naming it.
                fields.removeIf(f -> f[0].equals(Junk.quote("sendAt")));
                fields.add(new String[] {
                    Junk.quote("sendAt"),
                    junk.pick(
                            Junk.quote(java.time.Instant.now()
                                    .plus(java.time.Duration.ofDays(31))
                                    .toString()),
                            Junk.quote("2099-01-01T00:00:00Z"),
                            Junk.quote("tomorrow"),
                            Junk.quote("2030-01-01"),
                            Junk.quote("2030-01-01T00:00:00"),
                            Junk.quote("2030-01-01 00:00:00Z"),
                            Junk.quote(""),
                            "1893456000",
                            "true",
                            "[]",
                            "{}",
                            Junk.quote(junk.text(12)))
                });
                notes.add("bad-send-at");
            }
            case 14 -> {
                // Issue 26: every way a validity is wrong is a 400 at submit, never a message accepted to expire at
                // once.
                fields.removeIf(f -> f[0].equals(Junk.quote("validUntil")) || f[0].equals(Junk.quote("ttlSeconds")));
                String[] bad = switch (junk.below(5)) {
                    case 0 ->
                        new String[] {
                            "validUntil",
                            Junk.quote(junk.pick(
                                    "2020-01-01T00:00:00Z",
                                    "1970-01-01T00:00:00+00:00",
                                    java.time.Instant.now()
                                            .minus(java.time.Duration.ofDays(1))
                                            .toString()))
                        };
                    case 1 ->
                        new String[] {
                            "validUntil",
                            junk.pick(
                                    Junk.quote("tomorrow"),
                                    Junk.quote("2030-01-01"),
                                    Junk.quote("2030-01-01T00:00:00"),
                                    Junk.quote("2030-13-01T00:00:00Z"),
                                    Junk.quote("2030-01-01 00:00:00Z"),
                                    Junk.quote(""),
                                    "1893456000",
                                    "true",
                                    "[]",
                                    "{}",
                                    Junk.quote(junk.text(12)))
                        };
                    case 2 ->
                        new String[] {
                            "validUntil",
                            Junk.quote(java.time.Instant.now()
                                    .plusSeconds(259_200 + 3_600)
                                    .toString())
                        };
                    case 3 ->
                        new String[] {
                            "ttlSeconds",
                            junk.pick("0", "-1", "259201", "1.5", "1e3", "\"60\"", "99999999999999999999", "true", "[]")
                        };
                    default -> null;
                };
                if (bad == null) {
                    // Both at once.
                    fields.add(new String[] {
                        Junk.quote("validUntil"),
                        Junk.quote(java.time.Instant.now().plusSeconds(3_600).toString())
                    });
                    fields.add(new String[] {Junk.quote("ttlSeconds"), "60"});
                } else {
                    fields.add(new String[] {Junk.quote(bad[0]), bad[1]});
                }
                notes.add("bad-validity");
            }
            case 12 -> {
                // Issue 24 item 17: refused at submit, never accepted to be REJECTED later.
                set(
                        fields,
                        "to",
                        Junk.quote(junk.pick(
                                "12345",
                                "+49",
                                "+0151123456",
                                "+49 151 1234567",
                                "+4915112345678901",
                                "004915112345678",
                                "+49151123456x",
                                "+\u0664\u0669\u0661\u0665\u0661\u0661\u0662\u0663",
                                "4915112345678",
                                "+4915112345678 ",
                                " +4915112345678",
                                "+1234567\n",
                                junk.text(12))));
                notes.add("bad-recipient");
            }
            case 13 -> {
                // Issue 24 item 10: null is the same as absent, and is valid.
                set(fields, junk.pick("gateway", "reference", "metadata"), "null");
                notes.add("null-optional");
            }
            case 0 -> {
                set(fields, field, junk.notAString());
                notes.add("wrong-type:" + field);
            }
            case 1 -> {
                fields.removeIf(f -> f[0].equals(Junk.quote(field)));
                notes.add("missing:" + field);
            }
            case 2 -> {
                String name = junk.chance(0.5)
                        ? junk.text(10)
                        : junk.pick("To", "BODY", "messages", "idempotencyKey", "tenant", "", "id");
                if (batchItem && name.equals("idempotencyKey")) {
                    name = "idempotency_key";
                }
                fields.add(junk.below(fields.size() + 1), new String[] {
                    Junk.quote(name), junk.chance(0.5) ? Junk.quote(junk.text(5)) : junk.notAString()
                });
                notes.add("unknown-field");
            }
            case 3 -> {
                fields.add(new String[] {Junk.quote(field), Junk.quote(junk.text(5))});
                notes.add("duplicate-key:" + field);
            }
            case 4 -> {
                set(
                        fields,
                        field,
                        junk.chance(0.5) ? Junk.quote(junk.unstorableText()) : junk.quoteOddly(junk.unstorableText()));
                notes.add("unstorable:" + field);
            }
            case 5 -> {
                set(fields, field, Junk.quote(junk.huge(junk.pick(65, 129, 1601, 4097, 20_000))));
                notes.add("huge:" + field);
            }
            case 6 -> {
                set(fields, field, junk.nested(junk.pick(10, 999, 1001, 3000)));
                notes.add("nested:" + field);
            }
            case 7 -> {
                set(fields, "metadata", junk.chance(0.5) ? metadata() : junk.notAString());
                notes.add("metadata");
            }
            case 8 -> {
                set(fields, field, junk.quoteOddly(junk.text(12)));
                notes.add("odd-escapes:" + field);
            }
            case 9 -> {
                set(fields, field, Junk.quote(junk.pick("", " ", "\u0000", "null", "\uFEFF")));
                notes.add("empty-ish:" + field);
            }
            case 10 -> {
                String raw = junk.pick(
                        "'single'",
                        "unquoted",
                        "\"a\" \"b\"",
                        "\"tab\there\"",
                        "\"line\nbreak\"",
                        "\"\\x41\"",
                        "\"\\u12\"",
                        "NaN",
                        "Infinity",
                        "01",
                        "+1",
                        ".5",
                        "0x10",
                        "\"a\",",
                        "/*c*/\"a\"",
                        "//c\n\"a\"");
                set(fields, field, raw);
                notes.add("not-json-value:" + field);
            }
            default -> {
                set(fields, field, Junk.quote(junk.text(junk.pick(1, 64, 65, 128, 129, 1600, 1601))));
                notes.add("edge-length:" + field);
            }
        }
    }

    /** An object of odd keys and values: nasty text, numbers of every size, nesting, arrays, maybe too big. */
    private String metadata() {
        int n = junk.chance(0.9) ? junk.between(0, 6) : junk.between(50, 300);
        List<String> members = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String value = switch (junk.below(8)) {
                case 0 -> junk.notAString();
                case 1 -> junk.nested(junk.between(1, 30));
                case 2 ->
                    junk.pick(
                            "1e400",
                            "-1e400",
                            "1e-400",
                            "123456789012345678901234567890.123456789",
                            "-0",
                            "0.1",
                            "1E+2",
                            "-0.0",
                            "1.50",
                            "1e5000",
                            "1e-5000",
                            "1e999999999",
                            "9007199254740993",
                            "0.30000000000000004441");
                default -> Junk.quote(junk.text(20));
            };
            members.add(Junk.quote(junk.chance(0.2) ? "" : junk.text(10)) + ":" + value);
        }
        return "{" + String.join(",", members) + "}";
    }

    private static void set(List<String[]> fields, String field, String value) {
        String key = Junk.quote(field);
        for (String[] f : fields) {
            if (f[0].equals(key)) {
                f[1] = value;
                return;
            }
        }
        fields.add(new String[] {key, value});
    }

    private byte[] wholeBody(String json) {
        if (junk.chance(0.8)) {
            return json.getBytes(StandardCharsets.UTF_8);
        }
        byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
        switch (junk.below(12)) {
            case 0 -> {
                notes.add("truncated");
                return java.util.Arrays.copyOf(utf8, junk.below(Math.max(1, utf8.length)));
            }
            case 1, 2 -> {
                notes.add("invalid-utf8");
                return junk.withInvalidUtf8(json);
            }
            case 3 -> {
                notes.add("random-bytes");
                return junk.bytes(junk.between(1, 2000));
            }
            case 4 -> {
                notes.add("empty");
                return new byte[0];
            }
            case 5 -> {
                notes.add("top-level-not-object");
                return junk.pick(
                                "[" + json + "]",
                                "\"" + json.replace("\"", "'") + "\"",
                                "42",
                                "null",
                                "true",
                                " ",
                                "[]")
                        .getBytes(StandardCharsets.UTF_8);
            }
            case 6 -> {
                notes.add("trailing-data");
                return (json + junk.pick(" x", json, ",", "}", " // c", "\u0000")).getBytes(StandardCharsets.UTF_8);
            }
            case 7 -> {
                notes.add("bom");
                byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
                byte[] out = new byte[utf8.length + 3];
                System.arraycopy(bom, 0, out, 0, 3);
                System.arraycopy(utf8, 0, out, 3, utf8.length);
                return out;
            }
            case 8 -> {
                notes.add("utf-16");
                return json.getBytes(junk.chance(0.5) ? StandardCharsets.UTF_16 : StandardCharsets.UTF_16LE);
            }
            case 9 -> {
                notes.add("deep-nesting-10000");
                return junk.nested(10_000).getBytes(StandardCharsets.UTF_8);
            }
            case 10 -> {
                notes.add("deep-nesting-in-field");
                return ("{\"metadata\":" + junk.nested(10_000) + "," + json.substring(1))
                        .getBytes(StandardCharsets.UTF_8);
            }
            default -> {
                notes.add("whitespace-only");
                return junk.pick(" ", "\n\n", "\t \r\n").getBytes(StandardCharsets.UTF_8);
            }
        }
    }
}
