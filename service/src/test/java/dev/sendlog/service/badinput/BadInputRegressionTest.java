package dev.sendlog.service.badinput;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
        assertThat(ids(SERVICE.api().get("/v1/messages?limit=500&until=%2B999999999-12-31T23:59:59Z", "client-a"))).contains(id);
        assertThat(ids(SERVICE.api().get("/v1/messages?limit=500&since=-999999999-01-01T00:00:00Z", "client-a"))).contains(id);
        assertThat(ids(SERVICE.api().get("/v1/messages?limit=500&since=1969-12-31T23:59:59Z", "client-a"))).contains(id);
        assertThat(SERVICE.api().get("/v1/messages?until=1969-12-31T23:59:59Z", "client-a").json().get("items")).isEmpty();
        assertThat(SERVICE.api().get("/v1/messages?status=ACCEPTED&since=%2B999999999-12-31T23:59:59Z", "support-1").status())
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
            RawResponse r = send(RawRequest.get("/v1/messages/" + id).header("Authorization", "Bearer client-a")
                    .header("Accept", accept).build());
            assertThat(r.status()).as(accept).isEqualTo(200);
        }
        RawResponse notJson = send(RawRequest.post("/v1/messages").header("Authorization", "Bearer client-a")
                .header("Content-Type", "application/json; q=x; charset=utf-8").body("{\"to\":\"+4912\",\"body\":\"b\"}").build());
        assertProblem(notJson, 415);
        RawResponse unknownId = send(RawRequest.get("/v1/messages/nope").header("Authorization", "Bearer client-a")
                .header("Accept", "*/*;q=x").build());
        assertProblem(unknownId, 404);
        byte[] receipt = "{\"id\":\"p1\",\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}".getBytes(StandardCharsets.UTF_8);
        RawResponse callback = send(RawRequest.post("/v1/callbacks/sim").header("Content-Type", "application/json; q=x")
                .header("X-Signature", CallbackSignature.sign("sim-secret", receipt)).body(receipt).build());
        assertThat(callback.status()).as("a signed callback is stored whatever its Content-Type says").isEqualTo(200);
    }

    @Test
    void whatJettyRefusesItselfIsAnsweredAsProblemJsonToo() {
        RawRequest.Builder nulInHeader = RawRequest.get("/v1/messages").header("Authorization", "Bearer client-a")
                .header("Idempotency-Key", new byte[] {'a', 0, 'b'});
        assertProblem(send(nulInHeader.build()), 400);
        assertProblem(send(RawRequest.get("/v1/messages").header("X-Big", "x".repeat(20_000)).build()), 431);
        assertProblem(send(RawRequest.get("/v1/messages?to=" + "x".repeat(20_000)).build()), 414);
        assertProblem(send(RawRequest.get("/v1/messages/%00").header("Authorization", "Bearer client-a").build()), 400);
        assertProblem(send(RawRequest.post("/v1/messages").header("Authorization", "Bearer client-a")
                .framing(RawRequest.Framing.TWO_LENGTHS).body("{}").build()), 400);
        for (String method : new String[] {"FOO", "PUT", "DELETE", "PATCH"}) {
            assertProblem(send(RawRequest.method(method, "/v1/messages").header("Authorization", "Bearer client-a").build()), 405);
        }
    }

    private static List<String> ids(ApiResponse page) {
        assertThat(page.status()).as(page.raw()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        page.json().get("items").forEach(item -> ids.add(item.get("id").asText()));
        return ids;
    }
}
