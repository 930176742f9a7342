package dev.sendlog.service.badinput;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Each test pins down one bug the bad-input fuzz tests found: the input that broke the service, and the right answer. */
class BadInputRegressionTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,MAINTENANCE");

    private static RawResponse send(RawRequest request) {
        return new RawHttp(SERVICE.api().baseUrl()).send(request);
    }

    private static void assertProblem(RawResponse r, int status) {
        assertThat(r.status()).as(r.toString()).isEqualTo(status);
        assertThat(ProblemProperty.violation(r)).as(r.toString()).isNull();
    }

    @Test
    void aSearchTimeOutsideWhatAMessageIdCanHoldIsAnsweredNotA500() {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        for (String since : new String[] {"%2B999999999-12-31T23:59:59Z", "%2B10889-08-02T05:31:50.656Z"}) {
            ApiResponse r = SERVICE.api().get("/v1/messages?since=" + since, "client-a");
            assertThat(r.status()).as(since).isEqualTo(200);
            assertThat(r.json().get("items")).isEmpty();
        }
        assertThat(ids(SERVICE.api().get("/v1/messages?limit=500&until=%2B999999999-12-31T23:59:59Z", "client-a")))
                .contains(id);
        assertThat(ids(SERVICE.api().get("/v1/messages?limit=500&since=-999999999-01-01T00:00:00Z", "client-a")))
                .contains(id);
        assertThat(ids(SERVICE.api().get("/v1/messages?limit=500&since=1969-12-31T23:59:59Z", "client-a")))
                .contains(id);
        assertThat(SERVICE.api()
                        .get("/v1/messages?until=1969-12-31T23:59:59Z", "client-a")
                        .json()
                        .get("items"))
                .isEmpty();
        assertThat(SERVICE.api()
                        .get("/v1/messages?status=ACCEPTED&since=%2B999999999-12-31T23:59:59Z", "support-1")
                        .status())
                .isEqualTo(200);
    }

    @Test
    void searchTextWithANulIsRefusedWith400NamingTheParameterNotA500() {
        for (String param : new String[] {"to", "reference", "tenant"}) {
            ApiResponse r = SERVICE.api().get("/v1/messages?" + param + "=a%00b", "support-1");
            assertThat(r.status()).as(param).isEqualTo(400);
            assertThat(r.contentType()).startsWith("application/problem+json");
            assertThat(r.json().get("errors").get(0).get("field").asText()).isEqualTo(param);
        }
    }

    @Test
    void anAcceptOrContentTypeThatDoesNotParseIsIgnoredInsteadOfBreakingTheAnswer() {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        for (String accept : new String[] {"*/*;q=x", "application/json;q=2", "garbage/"}) {
            RawResponse r = send(RawRequest.get("/v1/messages/" + id)
                    .header("Authorization", "Bearer client-a")
                    .header("Accept", accept)
                    .build());
            assertThat(r.status()).as(accept).isEqualTo(200);
        }
        RawResponse notJson = send(RawRequest.post("/v1/messages")
                .header("Authorization", "Bearer client-a")
                .header("Content-Type", "application/json; q=x; charset=utf-8")
                .body("{\"to\":\"+4912\",\"body\":\"b\"}")
                .build());
        assertProblem(notJson, 415);
        RawResponse unknownId = send(RawRequest.get("/v1/messages/nope")
                .header("Authorization", "Bearer client-a")
                .header("Accept", "*/*;q=x")
                .build());
        assertProblem(unknownId, 404);
        byte[] receipt =
                "{\"id\":\"p1\",\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}".getBytes(StandardCharsets.UTF_8);
        RawResponse callback = send(RawRequest.post("/v1/callbacks/sim")
                .header("Content-Type", "application/json; q=x")
                .header("X-Signature", CallbackSignature.sign("sim-secret", receipt))
                .body(receipt)
                .build());
        assertThat(callback.status())
                .as("a signed callback is stored whatever its Content-Type says")
                .isEqualTo(200);
    }

    @Test
    void whatJettyRefusesItselfIsAnsweredAsProblemJsonToo() {
        RawRequest.Builder nulInHeader = RawRequest.get("/v1/messages")
                .header("Authorization", "Bearer client-a")
                .header("Idempotency-Key", new byte[] {'a', 0, 'b'});
        assertProblem(send(nulInHeader.build()), 400);
        assertProblem(
                send(RawRequest.get("/v1/messages")
                        .header("X-Big", "x".repeat(20_000))
                        .build()),
                431);
        assertProblem(
                send(RawRequest.get("/v1/messages?to=" + "x".repeat(20_000)).build()), 414);
        assertProblem(
                send(RawRequest.get("/v1/messages/%00")
                        .header("Authorization", "Bearer client-a")
                        .build()),
                400);
        assertProblem(
                send(RawRequest.post("/v1/messages")
                        .header("Authorization", "Bearer client-a")
                        .framing(RawRequest.Framing.TWO_LENGTHS)
                        .body("{}")
                        .build()),
                400);
        for (String method : new String[] {"FOO", "PUT", "DELETE", "PATCH"}) {
            assertProblem(
                    send(RawRequest.method(method, "/v1/messages")
                            .header("Authorization", "Bearer client-a")
                            .build()),
                    405);
        }
    }

    /** A request the direct submit path leaves alone (an Accept with a quality value), so that Jersey answers it. */
    private static final String[] THROUGH_JERSEY = {"Accept", "application/json;q=0.9"};

    private static RawRequest submit(String path, String body, boolean throughJersey, String... headers) {
        RawRequest.Builder b = RawRequest.post(path)
                .header("Authorization", "Bearer client-a")
                .header("Content-Type", "application/json");
        if (throughJersey) {
            b.header(THROUGH_JERSEY[0], THROUGH_JERSEY[1]);
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return b.body(body).build();
    }

    private static long stored(String column, String value) {
        return Sql.count(
                SERVICE.dataSource(),
                "SELECT count(*) FROM messages WHERE " + column + " = '" + value.replace("'", "''") + "'");
    }

    /** Issue 24 item 6: the direct path took a body with garbage after the JSON value (202), Jersey refused it. */
    @Test
    void bytesAfterTheJsonValueAreRefusedOnBothPaths() {
        for (boolean jersey : new boolean[] {false, true}) {
            String body = "trailing-" + jersey;
            for (String trailer : new String[] {" garbage", " {}", "]]]", " ,", " \"x\"", " 1"}) {
                RawResponse single = send(submit(
                        "/v1/messages", "{\"to\":\"+4915112345678\",\"body\":\"" + body + "\"}" + trailer, jersey));
                assertProblem(single, 400);
                RawResponse batch = send(submit(
                        "/v1/messages/batch",
                        "{\"messages\":[{\"to\":\"+4915112345678\",\"body\":\"" + body + "\"}]}" + trailer,
                        jersey));
                assertProblem(batch, 400);
            }
            assertThat(stored("body", body))
                    .as("nothing accepted, jersey=" + jersey)
                    .isZero();
            // Whitespace after the value is not a token.
            assertThat(send(submit(
                                    "/v1/messages",
                                    "{\"to\":\"+4915112345678\",\"body\":\"" + body + "\"} \r\n\t",
                                    jersey))
                            .status())
                    .isEqualTo(202);
        }
    }

    /** Issue 24 item 10: an explicit null is an absent field, so the same key with "gateway": null is a replay, not a 409. */
    @Test
    void aNullOptionalFieldIsTheSameRequestAsTheFieldLeftOut() {
        for (boolean jersey : new boolean[] {false, true}) {
            String key = "null-gateway-" + UUID.randomUUID();
            RawResponse first = send(submit(
                    "/v1/messages", "{\"to\":\"+4915112345678\",\"body\":\"n\"}", jersey, "Idempotency-Key", key));
            assertThat(first.status()).as(first.toString()).isEqualTo(202);
            for (String same : new String[] {
                "{\"to\":\"+4915112345678\",\"body\":\"n\",\"gateway\":null}",
                "{\"gateway\":null,\"reference\":null,\"metadata\":null,\"to\":\"+4915112345678\",\"body\":\"n\"}"
            }) {
                RawResponse again = send(submit("/v1/messages", same, jersey, "Idempotency-Key", key));
                assertThat(again.status()).as(same + " " + again).isEqualTo(202);
                assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
                assertThat(again.json().get("id")).isEqualTo(first.json().get("id"));
            }
            // The gateway named is another request, and the literal word "null" is not a gateway.
            assertProblem(
                    send(submit(
                            "/v1/messages",
                            "{\"to\":\"+4915112345678\",\"body\":\"n\",\"gateway\":\"sim\"}",
                            jersey,
                            "Idempotency-Key",
                            key)),
                    409);
            assertProblem(
                    send(submit(
                            "/v1/messages",
                            "{\"to\":\"+4915112345678\",\"body\":\"n\",\"gateway\":\"null\"}",
                            jersey,
                            "Idempotency-Key",
                            key)),
                    400);
        }
    }

    /** Issue 24 item 17: a recipient that fails the pattern was accepted (202) and only REJECTED later. */
    @Test
    void aRecipientThatDoesNotMatchThePatternIsRefusedAtSubmit() {
        for (boolean jersey : new boolean[] {false, true}) {
            for (String to : new String[] {
                "12345",
                "+49",
                "+0123456789",
                "+49 151 1234567",
                "+4915112345678901",
                "0049151123456",
                "+49151123456x",
                "+٤٩١٥١١٢٣٤٥٦٧",
                "' OR '1'='1",
                "+4915112345678\n"
            }) {
                String json = to.replace("\n", "\\n");
                RawResponse r =
                        send(submit("/v1/messages", "{\"to\":\"" + json + "\",\"body\":\"bad-recipient\"}", jersey));
                assertProblem(r, 400);
                assertThat(r.json().get("errors").get(0).get("field").asText())
                        .as(to)
                        .isEqualTo("to");
                RawResponse batch = send(submit(
                        "/v1/messages/batch",
                        "{\"messages\":[{\"to\":\"+4915112345678\",\"body\":" + "\"bad-recipient\"},{\"to\":\"" + json
                                + "\",\"body\":\"bad-recipient\"}]}",
                        jersey));
                assertProblem(batch, 400);
                assertThat(batch.json().get("errors").get(0).get("field").asText())
                        .as(to)
                        .isEqualTo("messages[1].to");
            }
        }
        assertThat(stored("body", "bad-recipient"))
                .as("nothing accepted, not even the batch's valid item")
                .isZero();
        assertThat(send(submit("/v1/messages", "{\"to\":\"+1234567\",\"body\":\"shortest\"}", false))
                        .status())
                .isEqualTo(202);
        assertThat(send(submit("/v1/messages", "{\"to\":\"+123456789012345\",\"body\":\"longest\"}", true))
                        .status())
                .isEqualTo(202);
    }

    /**
     * Issue 24 item 8: numbers in metadata went through double: 1e400 was stored as "Infinity", long decimals rounded,
     * 1E+2 became 100.0, and different bodies hashed the same. They are kept at their exact value, in the form jsonb
     * stores (exponent applied, scale as sent), and the request hash sees that form.
     */
    @Test
    void numbersInMetadataAreStoredExactlyAndTellRequestsApart() throws Exception {
        String[][] cases = {
            {"1e400", "1" + "0".repeat(400)},
            {"-1E+400", "-1" + "0".repeat(400)},
            {"1e-400", "0." + "0".repeat(399) + "1"},
            {
                "123456789012345678901234567890.123456789012345678901",
                "123456789012345678901234567890.123456789012345678901"
            },
            {"0.1", "0.1"},
            {"1.50", "1.50"},
            {"1E+2", "100"},
            {"1.0E+2", "100"},
            {"1.25e1", "12.5"},
            {"-0.0", "0.0"},
            {"-0", "0"},
            {"12345678901234567890123", "12345678901234567890123"},
            {"9007199254740993", "9007199254740993"},
            {"0.30000000000000004441", "0.30000000000000004441"}
        };
        for (boolean jersey : new boolean[] {false, true}) {
            StringBuilder metadata = new StringBuilder("{");
            for (int i = 0; i < cases.length; i++) {
                metadata.append(i == 0 ? "" : ",")
                        .append("\"n")
                        .append(i)
                        .append("\":")
                        .append(cases[i][0]);
            }
            metadata.append(",\"list\":[")
                    .append(cases[0][0])
                    .append(",")
                    .append(cases[6][0])
                    .append("]}");
            RawResponse r = send(submit(
                    "/v1/messages",
                    "{\"to\":\"+4915112345678\",\"body\":\"numbers\",\"metadata\":" + metadata + "}",
                    jersey));
            assertThat(r.status()).as(r.toString()).isEqualTo(202);
            String stored = StoredMessage.read(
                            SERVICE.dataSource(), r.json().get("id").asText())
                    .metadataJson();
            com.fasterxml.jackson.databind.JsonNode tree = new com.fasterxml.jackson.databind.ObjectMapper()
                    .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                    .readTree(stored);
            for (int i = 0; i < cases.length; i++) {
                // The exact text PostgreSQL holds for the number: its digits as sent, nothing rounded.
                assertThat(numberText(stored, "n" + i))
                        .as(cases[i][0] + " in " + Text.clip(stored, 300))
                        .isEqualTo(cases[i][1]);
                assertThat(tree.get("n" + i).isNumber()).isTrue();
            }
            assertThat(stored).doesNotContain("Infinity");
        }

        // Different numbers are different requests; the same value written another way (as jsonb stores it) is not.
        String[][] differ = {
            {"1e400", "2e400"},
            {"0.12345678901234567890", "0.12345678901234567891"},
            {"100", "100.0"},
            {"1.5", "1.50"},
            {"9007199254740993", "9007199254740992"}
        };
        for (String[] pair : differ) {
            String key = "numbers-" + UUID.randomUUID();
            assertThat(send(submit("/v1/messages", metadataBody(pair[0]), false, "Idempotency-Key", key))
                            .status())
                    .isEqualTo(202);
            assertProblem(send(submit("/v1/messages", metadataBody(pair[1]), false, "Idempotency-Key", key)), 409);
            assertProblem(send(submit("/v1/messages", metadataBody(pair[1]), true, "Idempotency-Key", key)), 409);
            RawResponse same = send(submit("/v1/messages", metadataBody(pair[0]), true, "Idempotency-Key", key));
            assertThat(same.header("Idempotent-Replayed")).as(pair[0]).isEqualTo("true");
        }
        String key = "numbers-" + UUID.randomUUID();
        RawResponse first = send(submit("/v1/messages", metadataBody("1E+2"), false, "Idempotency-Key", key));
        RawResponse again = send(submit("/v1/messages", metadataBody("100"), false, "Idempotency-Key", key));
        assertThat(again.status()).isEqualTo(202);
        assertThat(again.json().get("id"))
                .as("1E+2 is stored as 100: the same request")
                .isEqualTo(first.json().get("id"));

        // What cannot be kept is refused, not rounded: a number whose exact digits do not fit in the metadata's 4 KiB.
        for (String huge : new String[] {"1e5000", "1e-5000", "1e999999999", "-1E+2147483647"}) {
            for (boolean jersey : new boolean[] {false, true}) {
                RawResponse r = send(submit("/v1/messages", metadataBody(huge), jersey));
                assertProblem(r, 400);
            }
        }
    }

    private static String metadataBody(String number) {
        return "{\"to\":\"+4915112345678\",\"body\":\"numbers-key\",\"metadata\":{\"n\":" + number + "}}";
    }

    /** The literal text of the number stored under {@code "key"} (jsonb's own text, not re-parsed). */
    private static String numberText(String json, String key) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + key + "\": ?(-?[0-9.eE+-]+)")
                .matcher(json);
        assertThat(m.find()).as(key + " in " + Text.clip(json, 300)).isTrue();
        return m.group(1);
    }

    /** Issue 24 item 13: Location was built from the request's Host header; it is publicBaseUrl's. */
    @Test
    void locationIsUnderThePublicBaseUrlWhateverTheHostHeaderSays() {
        String base = SERVICE.configuration().publicBaseUrl;
        for (boolean jersey : new boolean[] {false, true}) {
            RawResponse r = send(submit(
                    "/v1/messages",
                    "{\"to\":\"+4915112345678\",\"body\":\"host\"}",
                    jersey,
                    "Host",
                    "evil.example:666"));
            assertThat(r.status()).as(r.toString()).isEqualTo(202);
            assertThat(r.header("Location"))
                    .as("jersey=" + jersey)
                    .isEqualTo(base + "/v1/messages/" + r.json().get("id").asText());
        }
    }

    /** Issue 24 item 13: the console could be framed by any page, and nothing said not to sniff content types. */
    @Test
    void everyAnswerForbidsFramingAndSniffing() {
        for (String path :
                new String[] {"/console/", "/console/index.html", "/console/console.js", "/v1/messages", "/nope"}) {
            RawResponse r = send(RawRequest.get(path)
                    .header("Authorization", "Bearer client-a")
                    .build());
            assertThat(r.header("X-Frame-Options")).as(path).isEqualTo("DENY");
            assertThat(r.header("X-Content-Type-Options")).as(path).isEqualTo("nosniff");
            assertThat(r.header("Content-Security-Policy")).as(path).contains("frame-ancestors 'none'");
        }
        RawResponse page = send(RawRequest.get("/console/").build());
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("Content-Security-Policy"))
                .contains("script-src 'self'")
                .contains("default-src 'none'");
        RawResponse submit = send(submit("/v1/messages", "{\"to\":\"+4915112345678\",\"body\":\"headers\"}", false));
        assertThat(submit.status()).isEqualTo(202);
        assertThat(submit.header("X-Content-Type-Options")).isEqualTo("nosniff");
    }

    /**
     * Issue 24 item 13: there was no access log, so a support key reading across tenants left no trace. Each request
     * is logged with the key's name and tenant, and never the key.
     */
    @Test
    void theAccessLogNamesTheKeyAndItsTenantAndNeverTheKey() {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        List<String> lines = AccessLines.during(() -> {
            assertThat(SERVICE.api().get("/v1/messages/" + id, "support-1").status())
                    .isEqualTo(200);
            assertThat(SERVICE.api()
                            .get("/v1/messages?tenant=acme&limit=1", "support-1")
                            .status())
                    .isEqualTo(200);
            assertThat(SERVICE.api()
                            .post("/v1/messages", "client-a", "{\"to\":\"+4915112345678\",\"body\":\"logged\"}")
                            .status())
                    .isEqualTo(202);
            assertThat(SERVICE.api().get("/v1/messages/" + id, "no-such-key").status())
                    .isEqualTo(401);
        });
        assertThat(lines)
                .anySatisfy(l -> assertThat(l)
                        .contains("GET /v1/messages/" + id + " ")
                        .contains("status=200")
                        .contains("key=ops-support")
                        .contains("tenant=ops")
                        .contains("role=support"));
        assertThat(lines)
                .anySatisfy(l -> assertThat(l)
                        .contains("GET /v1/messages?tenant=acme&limit=1 ")
                        .contains("key=ops-support")
                        .contains("tenant=ops"));
        assertThat(lines)
                .anySatisfy(l -> assertThat(l)
                        .contains("POST /v1/messages ")
                        .contains("status=202")
                        .contains("key=acme-client")
                        .contains("tenant=acme"));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("status=401").contains("key=-"));
        assertThat(lines).noneSatisfy(l -> assertThat(l).containsAnyOf("support-1", "client-a", "no-such-key"));
    }

    /**
     * Issue 24 item 5: a callback with a signature header that cannot be right held a request thread while its body
     * trickled in (and then answered 500). It is refused before its body is read.
     */
    @Test
    void aCallbackWhoseSignatureCannotBeRightIsRefusedBeforeItsBody() throws Exception {
        for (String signature : new String[] {"sha256=00", "nope", "sha256=" + "g".repeat(64)}) {
            long start = System.nanoTime();
            RawResponse r = SlowClient.sendHeadersOnly(
                    SERVICE.api().baseUrl(),
                    "POST /v1/callbacks/sim HTTP/1.1\r\nHost: 127.0.0.1\r\n" + "X-Signature: " + signature
                            + "\r\nContent-Length: 200\r\n\r\nabc");
            assertProblem(r, 401);
            assertThat((System.nanoTime() - start) / 1_000_000).as(signature).isLessThan(3_000);
        }
        long start = System.nanoTime();
        RawResponse noKey = SlowClient.sendHeadersOnly(
                SERVICE.api().baseUrl(),
                "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Content-Type: application/json\r\nAuthorization: Bearer wrong-key\r\nContent-Length: 200\r\n\r\n{\"to\"");
        assertProblem(noKey, 401);
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(3_000);
    }

    private static List<String> ids(ApiResponse page) {
        assertThat(page.status()).as(page.raw()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        page.json().get("items").forEach(item -> ids.add(item.get("id").asText()));
        return ids;
    }
}
