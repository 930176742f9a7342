package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * GET one and search show {@code segments}, the units a message is charged, and the ledger charges exactly that: the
 * GSM-7 and UCS-2 rules with their split cases ({@code SegmentsProperties} holds the rules themselves).
 */
class SegmentsApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness();

    @Test
    void getOneAndSearchShowTheSegmentsTheLedgerCharges() throws Exception {
        Map<String, Integer> expected = Map.of(
                "Your code is 123456",
                1,
                "a".repeat(161),
                2,
                // 306 septets, but the euro sign's escape may not be split from it: three parts.
                "a".repeat(152) + "€" + "a".repeat(152),
                3,
                "ж".repeat(70),
                1,
                // 134 UTF-16 units, but the emoji's surrogate pair cannot straddle a boundary: three parts.
                "ж".repeat(66) + "😀" + "ж".repeat(66),
                3);
        String to = Messages.recipient();
        for (Map.Entry<String, Integer> e : expected.entrySet()) {
            ApiResponse r = SERVICE.api()
                    .post("/v1/messages", "client-a", JSON.writeValueAsString(Map.of("to", to, "body", e.getKey())));
            assertThat(r.status()).as(r.raw()).isEqualTo(202);
            String id = r.json().get("id").asText();
            assertThat(SERVICE.api()
                            .get("/v1/messages/" + id, "client-a")
                            .json()
                            .get("segments")
                            .asInt())
                    .as("GET one of %s", e.getKey())
                    .isEqualTo(e.getValue());
            Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT units FROM ledger WHERE effect_key = '" + id + "'"))
                    .as("charged for %s", e.getKey())
                    .isEqualTo(e.getValue().longValue());
        }
        var page = SERVICE.api()
                .get(
                        "/v1/messages?to=" + java.net.URLEncoder.encode(to, java.nio.charset.StandardCharsets.UTF_8),
                        "client-a")
                .json()
                .get("items");
        assertThat(page).hasSize(expected.size());
        page.forEach(item -> assertThat(item.get("segments").asInt()).isBetween(1, 3));
        assertThat(page.findValuesAsText("segments").stream()
                        .mapToInt(Integer::parseInt)
                        .sum())
                .as("search shows the same units")
                .isEqualTo(
                        expected.values().stream().mapToInt(Integer::intValue).sum());
    }
}
