package dev.sendlog.service.badinput;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Requests to the client API: submissions and batches (bodies from {@link SubmitBodies}), reads of one message and
 * of its events, searches with garbage parameters, the suppression list (PUT, DELETE, list, changes) with odd
 * recipients, reasons and parameters, the webhook registration (PUT, GET, DELETE, rotate-secret) with bad URLs, private
 * targets and bad events, and odd methods and paths; each with odd headers, content types, framing and
 * keys sometimes. A client reading another tenant's message must get exactly 404.
 */
final class ClientApiCases {
    static final String[] STATUSES = {
        "ACCEPTED",
        "SENDING",
        "RETRYING",
        "SENT",
        "IN_TRANSIT",
        "DELIVERED",
        "UNDELIVERED",
        "UNKNOWN",
        "REJECTED",
        "DEAD"
    };

    private final Junk junk;
    private final HeaderJunk headers;
    private final UrlJunk url;
    private final SubmitBodies bodies;
    private final List<String> acmeIds;
    private final List<String> globexIds;

    ClientApiCases(Junk junk, List<String> acmeIds, List<String> globexIds) {
        this.junk = junk;
        this.headers = new HeaderJunk(junk);
        this.url = new UrlJunk(junk);
        this.bodies = new SubmitBodies(junk);
        this.acmeIds = acmeIds;
        this.globexIds = globexIds;
    }

    FuzzCase next() {
        int roll = junk.below(100);
        if (roll < 40) {
            return submit(false);
        }
        if (roll < 55) {
            return submit(true);
        }
        if (roll < 70) {
            return readOne();
        }
        if (roll < 85) {
            return search();
        }
        if (roll < 90) {
            return suppression();
        }
        if (roll < 95) {
            return webhook();
        }
        return other();
    }

    /**
     * A request to the suppression list. Notes say what is wrong with it ("bad-recipient", "bad-reason"), so that a
     * 2xx answer to one is a failure (ClientApiFuzzTest).
     */
    private FuzzCase suppression() {
        String recipient;
        if (junk.chance(0.5)) {
            recipient = junk.pick("%2B4915112345678", "+4915112345678", "%2B12025550123", "+33612345678");
        } else {
            recipient = junk.pick(
                    "12345",
                    "%2B0123456789",
                    "%2B49",
                    "%2B4915112345678901234",
                    "4915112345678",
                    "%2B49%00",
                    "%2B49 1511",
                    "%2B%2B491511234567",
                    "%EF%BC%8B4915112345678",
                    "%2B49151123456%C2%B2",
                    url.value());
        }
        boolean good = recipient.startsWith("+")
                || recipient.startsWith("%2B4915")
                || recipient.startsWith("%2B1")
                || recipient.startsWith("%2B33");
        if (recipient.equals("%2B4915112345678901234")) {
            good = false;
        }
        String method = junk.pick("PUT", "PUT", "DELETE", "GET", "GET");
        boolean changes = method.equals("GET") && junk.chance(0.5);
        String target = method.equals("GET") && !changes
                ? "/v1/suppressions"
                : "/v1/suppressions/" + recipient + (changes ? "/changes" : "");
        List<String> params = new ArrayList<>();
        int n = junk.between(0, 3);
        boolean badReason = false;
        for (int i = 0; i < n; i++) {
            String name = junk.pick("tenant", "limit", "cursor", "reason", "unknown", "");
            String value = switch (name) {
                case "tenant" -> junk.pick("acme", "globex", "ops", "", "%00", "nosuch", UrlJunk.encode(junk.text(10)));
                case "limit" -> junk.pick("0", "1", "50", "500", "501", "-1", "NaN", "99999999999999999999");
                case "cursor" ->
                    junk.pick("KzQ5MTUxMTIzNDU2Nzg", "%25%25", "AA", "1", "-1", "x", UrlJunk.encode(junk.text(8)));
                case "reason" ->
                    junk.pick(
                            "user%20replied%20STOP", "", "%20", "%00", "x".repeat(501), UrlJunk.encode(junk.text(30)));
                default -> UrlJunk.encode(junk.text(6));
            };
            params.add(name + "=" + value);
        }
        if (!params.isEmpty()) {
            target += "?" + String.join("&", params);
        }
        RawRequest.Builder b = RawRequest.method(method, target);
        if (!good && !(method.equals("GET") && !changes)) {
            b.note("bad-recipient");
        }
        String tenant = headers.authorization(b, 0.9, HeaderJunk.CLIENT_A, HeaderJunk.CLIENT_B, "support-1", "admin-1");
        headers.accept(b);
        if (method.equals("PUT")) {
            headers.contentType(b, 0.9);
            String body = switch (junk.below(12)) {
                case 0, 1, 2, 3 -> "{\"reason\":\"user replied STOP\"}";
                case 4 -> {
                    badReason = true;
                    yield "{}";
                }
                case 5 -> {
                    badReason = true;
                    yield junk.pick(
                            "{\"reason\":null}",
                            "{\"reason\":7}",
                            "{\"reason\":[\"x\"]}",
                            "{\"reason\":\"\"}",
                            "{\"reason\":\"   \"}",
                            "{\"reason\":\"a\\u0000b\"}",
                            "{\"reason\":\"\\ud800\"}");
                }
                case 6 -> {
                    badReason = true;
                    yield "{\"reason\":\"" + "x".repeat(junk.between(501, 2000)) + "\"}";
                }
                case 7 -> {
                    badReason = true;
                    yield junk.pick(
                            "{\"reason\":\"x\",\"until\":1}",
                            "[\"x\"]",
                            "\"x\"",
                            "{\"reason\":\"x\"} {}",
                            "",
                            "{",
                            "{\"reason\":\"x\",\"reason\":\"y\"}");
                }
                default -> "{\"reason\":" + com.fasterxml.jackson.databind.node.TextNode.valueOf(junk.text(40)) + "}";
            };
            b.body(body);
        }
        if (badReason) {
            b.note("bad-reason");
        }
        return new FuzzCase(FuzzCase.Kind.SUPPRESSION, b.build(), Set.of(), tenant);
    }

    /**
     * A request to the webhook registration (issue 27). The service runs with private targets refused here, and every
     * host is an address literal or a name refused before any lookup, so no case reaches DNS. Notes say what is wrong
     * ("bad-url", "bad-events", "bad-body"), so that a 2xx answer to one is a failure (ClientApiFuzzTest).
     */
    private FuzzCase webhook() {
        String method = junk.pick("PUT", "PUT", "PUT", "GET", "DELETE", "POST");
        String target = method.equals("POST")
                ? junk.pick(
                        "/v1/webhook/rotate-secret", "/v1/webhook/rotate-secret", "/v1/webhook", "/v1/webhook/rotate")
                : "/v1/webhook";
        if (junk.chance(0.2)) {
            target +=
                    "?tenant=" + junk.pick("acme", "globex", "ops", "", "%00", "nosuch", UrlJunk.encode(junk.text(10)));
        }
        RawRequest.Builder b = RawRequest.method(method, target);
        String tenant = headers.authorization(b, 0.9, HeaderJunk.CLIENT_A, HeaderJunk.CLIENT_B, "support-1", "admin-1");
        headers.accept(b);
        if (method.equals("PUT")) {
            headers.contentType(b, 0.9);
            String url;
            if (junk.chance(0.4)) {
                url = junk.pick(
                        "https://203.0.113.10/hooks",
                        "http://198.51.100.7:8080/in?x=1",
                        "https://[2001:db8::10]/h",
                        "https://203.0.113.10/" + UrlJunk.encode(junk.text(20)));
            } else {
                b.note("bad-url");
                url = junk.pick(
                        "ftp://203.0.113.10/x",
                        "file:///etc/passwd",
                        "javascript:alert(1)",
                        "gopher://203.0.113.10/",
                        "http://127.0.0.1:8080/hook",
                        "http://10.1.2.3/",
                        "http://172.16.0.1/",
                        "http://192.168.1.1/",
                        "http://100.64.0.1/",
                        "http://169.254.169.254/latest/meta-data/",
                        "http://[::1]/",
                        "http://[::]/",
                        "http://[fe80::1]/",
                        "http://[fd00:ec2::254]/",
                        "http://[::ffff:10.0.0.1]/",
                        "http://[::ffff:127.0.0.1]/",
                        "http://0.0.0.0/",
                        "http://localhost/",
                        "http://metadata.google.internal/",
                        "http://2130706433/",
                        "http://0x7f.1/",
                        "https://u:p@203.0.113.10/",
                        "https://203.0.113.10:0/",
                        "https://203.0.113.10:65536/",
                        "https://203.0.113.10/" + "a".repeat(junk.between(2030, 3000)),
                        "",
                        "https://",
                        "203.0.113.10/x",
                        "https://203.0.113.10/a b",
                        "http://[224.0.0.1]/");
            }
            String events = switch (junk.below(8)) {
                case 0, 1, 2 -> null;
                case 3 -> "[\"DELIVERED\",\"UNDELIVERED\"]";
                case 4 -> "[\"" + junk.pick(STATUSES) + "\"]";
                default -> {
                    b.note("bad-events");
                    yield junk.pick(
                            "[]",
                            "[\"NOPE\"]",
                            "[\"delivered\"]",
                            "[\"DELIVERED\",\"DELIVERED\"]",
                            "\"DELIVERED\"",
                            "[7]",
                            "[null]",
                            "{}",
                            "[\"DELIVERED \"]",
                            "[" + "\"SENT\",".repeat(20) + "\"SENT\"]");
                }
            };
            String body = "{\"url\":" + com.fasterxml.jackson.databind.node.TextNode.valueOf(url)
                    + (events == null ? "" : ",\"events\":" + events) + "}";
            if (junk.chance(0.1)) {
                b.note("bad-body");
                body = junk.pick(
                        "{",
                        "[]",
                        "\"x\"",
                        body + " {}",
                        "{\"url\":\"https://203.0.113.10/\",\"secret\":\"whsec_x\"}",
                        "{\"url\":\"https://203.0.113.10/\",\"url\":\"https://203.0.113.11/\"}",
                        "");
            }
            b.body(body);
        }
        return new FuzzCase(FuzzCase.Kind.WEBHOOK, b.build(), Set.of(), tenant);
    }

    private FuzzCase submit(boolean batch) {
        String target = batch ? "/v1/messages/batch" : "/v1/messages";
        if (junk.chance(0.05)) {
            target += "?" + junk.pick("x=" + url.value(), "&&", "=", "to=%00", "%ZZ");
        }
        RawRequest.Builder b = RawRequest.post(target);
        String tenant = headers.authorization(
                b, 0.9, HeaderJunk.CLIENT_A, HeaderJunk.CLIENT_A, HeaderJunk.CLIENT_B, "support-1");
        if (batch && junk.chance(0.1)) {
            b.header("Idempotency-Key", junk.token(10)).note("batch-with-key-header");
        } else if (!batch) {
            headers.idempotencyKey(b);
        }
        headers.contentType(b, 0.9);
        headers.accept(b);
        headers.framing(b);
        byte[] body;
        if (junk.chance(0.03)) {
            body = ("{\"to\":\"+4912\",\"body\":\"" + "x".repeat(junk.between(65 * 1024, 200 * 1024)) + "\"}")
                    .getBytes();
            b.note("over-64KiB");
        } else {
            body = batch ? bodies.batch() : bodies.single();
            b.note(bodies.notes());
        }
        b.body(body);
        return new FuzzCase(batch ? FuzzCase.Kind.BATCH : FuzzCase.Kind.SUBMIT, b.build(), Set.of(), tenant);
    }

    private FuzzCase readOne() {
        String segment;
        String whose = "";
        switch (junk.below(10)) {
            case 0, 1 -> {
                segment = junk.pick(acmeIds);
                whose = "acme";
            }
            case 2, 3 -> {
                segment = junk.pick(globexIds);
                whose = "globex";
            }
            case 4 -> segment = UUID.randomUUID().toString();
            case 5 ->
                segment = junk.pick(
                        "1-1-1-1-1",
                        "00000000-0000-0000-0000-000000000000",
                        "ffffffff-ffff-ffff-ffff-ffffffffffff",
                        "0-0-0-0-0",
                        "-1--1--1",
                        "7fffffff-ffff-7fff-bfff-ffffffffffff",
                        "01a229c0-5400-7000-8000-00000000000g");
            case 6 -> {
                segment = junk.pick(acmeIds).toUpperCase(java.util.Locale.ROOT);
                whose = "acme";
            }
            default -> segment = url.value();
        }
        String target = "/v1/messages/" + segment + (junk.chance(0.3) ? "/events" : "");
        RawRequest.Builder b = RawRequest.get(target);
        String tenant = headers.authorization(b, 0.9, HeaderJunk.CLIENT_A, HeaderJunk.CLIENT_B, "support-1", "admin-1");
        boolean oddAccept = headers.accept(b);
        Set<Integer> allowed = Set.of();
        if (tenant != null && !whose.isEmpty() && !tenant.equals("ops")) {
            // An Accept without JSON may be refused (406, or 400 when it does not parse) before the message is looked
            // up.
            int right = tenant.equals(whose) ? 200 : 404;
            allowed = oddAccept ? Set.of(right, 400, 406) : Set.of(right);
            b.note(tenant.equals(whose) ? "own-message" : "other-tenants-message");
        }
        return new FuzzCase(FuzzCase.Kind.READ, b.build(), allowed, tenant);
    }

    private FuzzCase search() {
        List<String> params = new ArrayList<>();
        int n = junk.between(0, 5);
        for (int i = 0; i < n; i++) {
            String name = junk.pick(
                    "to",
                    "reference",
                    "status",
                    "since",
                    "until",
                    "limit",
                    "cursor",
                    "tenant",
                    "to",
                    "reference",
                    "unknown",
                    "",
                    "LIMIT");
            params.add(name + (junk.chance(0.05) ? "" : "=" + searchValue(name)));
        }
        String target = "/v1/messages" + (params.isEmpty() && junk.chance(0.5) ? "" : "?" + String.join("&", params));
        RawRequest.Builder b = RawRequest.get(target);
        String tenant = headers.authorization(b, 0.9, HeaderJunk.CLIENT_A, HeaderJunk.CLIENT_B, "support-1", "admin-1");
        headers.accept(b);
        return new FuzzCase(FuzzCase.Kind.SEARCH, b.build(), Set.of(), tenant);
    }

    private String searchValue(String name) {
        if (junk.chance(0.3)) {
            return url.value();
        }
        return switch (name) {
            case "status" ->
                junk.pick(junk.pick(STATUSES), "delivered", "Delivered", "DELIVERED ", "SENDING,SENT", "PENDING");
            case "since", "until" ->
                UrlJunk.encode(junk.pick(
                        "2026-11-30T00:00:00Z",
                        "2026-11-30T00:00:00.123456789Z",
                        "+999999999-12-31T23:59:59Z",
                        "-999999999-01-01T00:00:00Z",
                        "1969-12-31T23:59:59Z",
                        "1970-01-01T00:00:00Z",
                        "0000-01-01T00:00:00Z",
                        "+10889-08-02T05:31:50.655Z",
                        "+10889-08-02T05:31:50.656Z",
                        "+20000-01-01T00:00:00Z",
                        "2026-13-01T00:00:00Z",
                        "2026-02-30T00:00:00Z",
                        "2026-11-30",
                        "2026-11-30T00:00:00+01:00",
                        "2026-11-30T00:00:00",
                        "1764460800",
                        "yesterday",
                        "2026-11-30T24:00:00Z"));
            case "limit" ->
                junk.pick(
                        "0",
                        "-1",
                        "1",
                        "50",
                        "500",
                        "501",
                        "1e3",
                        "99999999999999999999",
                        "2147483648",
                        "%205",
                        "0x10",
                        "NaN",
                        "%2B5",
                        UrlJunk.encode("٥"));
            case "cursor" ->
                junk.pick(
                        junk.pick(acmeIds),
                        junk.pick(globexIds),
                        UUID.randomUUID().toString(),
                        "1-1-1-1-1",
                        "00000000-0000-0000-0000-000000000000",
                        "ffffffff-ffff-ffff-ffff-ffffffffffff",
                        "nope");
            case "tenant" ->
                junk.pick(
                        "acme",
                        "globex",
                        "ops",
                        "",
                        "%00",
                        UrlJunk.encode("' OR '1'='1"),
                        UrlJunk.encode(junk.text(10)));
            case "to" -> junk.pick("%2B4915112345678", "+4915112345678", UrlJunk.encode(junk.text(20)), "%2B49%25");
            case "reference" ->
                junk.pick(UrlJunk.encode(junk.text(20)), "%25", "_", UrlJunk.encode("'; DROP TABLE messages; --"));
            default -> UrlJunk.encode(junk.text(10));
        };
    }

    private FuzzCase other() {
        String id = junk.pick(acmeIds);
        String target = junk.pick(
                "/v1/messages",
                "/v1/messages/" + id,
                "/v1/messages/batch",
                "/v1/messages/" + id + "/events",
                "/v1/messages/" + id + "/events/1",
                "/v1//messages",
                "/v1/messages/",
                "/",
                "/v1",
                "/v1/messages/batch/x",
                "/v1/admin/dead",
                "/v1/admin/parked",
                "/v1/admin/messages/" + id + "/redrive",
                "/v1/callbacks/sim",
                "http://127.0.0.1/v1/messages",
                "/v1/messages?#",
                "/v1/./messages",
                "/v1/../v1/messages",
                "/%2e%2e/v1/messages",
                "/v1/messages/%2F",
                "/v1/messages;jsessionid=x");
        String method = junk.pick("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "FOO", "get", "CONNECT");
        RawRequest.Builder b = RawRequest.method(method, target).note("odd-method-or-path");
        String tenant = headers.authorization(b, 0.8, HeaderJunk.CLIENT_A, "support-1");
        if (!method.equals("GET") && junk.chance(0.5)) {
            headers.contentType(b, 0.7);
            b.body(bodies.single());
        }
        return new FuzzCase(FuzzCase.Kind.OTHER, b.build(), Set.of(), tenant);
    }
}
