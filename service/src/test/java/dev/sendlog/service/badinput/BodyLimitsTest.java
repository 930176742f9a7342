package dev.sendlog.service.badinput;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A body over 64 KiB is a 413 problem whether it announces its length or comes chunked without one, on the JSON
 * endpoints and on callbacks (signed or not), and nothing of it is stored; an empty body is a 400 or, for a signed
 * callback, stored like any other.
 */
class BodyLimitsTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,MAINTENANCE");

    private static final byte[] HUGE_MESSAGE =
            ("{\"to\":\"+4912\",\"body\":\"" + "x".repeat(100 * 1024) + "\"}").getBytes(StandardCharsets.UTF_8);
    private static final byte[] HUGE_BATCH = ("{\"messages\":[{\"to\":\"+4912\",\"body\":\"" + "x".repeat(1500) + "\"}"
                    + (",{\"to\":\"+4912\",\"body\":\"" + "x".repeat(1500) + "\"}").repeat(60) + "]}")
            .getBytes(StandardCharsets.UTF_8);

    private static RawResponse send(RawRequest request) {
        return new RawHttp(SERVICE.api().baseUrl()).send(request);
    }

    private static void assertProblem(RawResponse r, int status) {
        assertThat(r.status()).as(r.toString()).isEqualTo(status);
        assertThat(ProblemProperty.violation(r)).as(r.toString()).isNull();
    }

    private static long count(String sql) {
        return Sql.count(SERVICE.dataSource(), sql);
    }

    @Test
    void aJsonBodyOver64KibIs413WithOrWithoutAContentLength() {
        long before = count("SELECT count(*) FROM messages");
        for (RawRequest.Framing framing :
                new RawRequest.Framing[] {RawRequest.Framing.LENGTH, RawRequest.Framing.CHUNKED}) {
            for (String path : new String[] {"/v1/messages", "/v1/messages/batch"}) {
                byte[] body = path.endsWith("batch") ? HUGE_BATCH : HUGE_MESSAGE;
                assertProblem(
                        send(RawRequest.post(path)
                                .header("Authorization", "Bearer client-a")
                                .header("Content-Type", "application/json")
                                .framing(framing)
                                .body(body)
                                .build()),
                        413);
            }
        }
        assertThat(count("SELECT count(*) FROM messages")).isEqualTo(before);
    }

    @Test
    void aCallbackOver64KibIs413WithOrWithoutAContentLengthAndIsNotStored() {
        long before = count("SELECT count(*) FROM callback_inbox");
        for (RawRequest.Framing framing :
                new RawRequest.Framing[] {RawRequest.Framing.LENGTH, RawRequest.Framing.CHUNKED}) {
            assertProblem(
                    send(RawRequest.post("/v1/callbacks/sim")
                            .header("Content-Type", "application/json")
                            .header("X-Signature", CallbackSignature.sign("sim-secret", HUGE_MESSAGE))
                            .framing(framing)
                            .body(HUGE_MESSAGE)
                            .build()),
                    413);
        }
        assertThat(count("SELECT count(*) FROM callback_inbox")).isEqualTo(before);
    }

    @Test
    void anEmptyBodyIsA400ForMessagesAndIsStoredForASignedCallback() {
        for (String path : new String[] {"/v1/messages", "/v1/messages/batch"}) {
            for (RawRequest.Framing framing :
                    new RawRequest.Framing[] {RawRequest.Framing.LENGTH, RawRequest.Framing.CHUNKED}) {
                assertProblem(
                        send(RawRequest.post(path)
                                .header("Authorization", "Bearer client-a")
                                .header("Content-Type", "application/json")
                                .framing(framing)
                                .build()),
                        400);
            }
        }
        RawResponse callback = send(RawRequest.post("/v1/callbacks/sim")
                .header("X-Signature", CallbackSignature.sign("sim-secret", new byte[0]))
                .build());
        assertThat(callback.status()).as(callback.toString()).isEqualTo(200);
        assertThat(count("SELECT count(*) FROM callback_inbox WHERE id = "
                        + callback.json().get("stored").asLong() + " AND length(body) = 0"))
                .isEqualTo(1);
    }
}
