package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** GET /v1/messages: filters, tenant scope, time range and keyset pagination, newest first. */
class SearchApiTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,MAINTENANCE");

    private static final List<String> ACME_IDS = new ArrayList<>();
    private static Instant middle;

    @BeforeAll
    static void messages() {
        for (int i = 0; i < 5; i++) {
            if (i == 3) {
                SERVICE.clock().advance(Duration.ofMinutes(1));
                middle = SERVICE.now();
                SERVICE.clock().advance(Duration.ofMinutes(1));
            }
            ACME_IDS.add(submit("client-a", "+4940" + (i % 2), "ref-" + i));
            SERVICE.clock().advance(Duration.ofMillis(5));
        }
        submit("client-b", "+49400", "ref-0");
    }

    private static String submit(String key, String to, String reference) {
        ApiResponse r = SERVICE.api().post("/v1/messages", key,
                "{\"to\":\"" + to + "\",\"body\":\"b\",\"reference\":\"" + reference + "\"}");
        assertThat(r.status()).isEqualTo(202);
        return r.json().get("id").asText();
    }

    private static List<String> ids(JsonNode page) {
        List<String> ids = new ArrayList<>();
        page.get("items").forEach(i -> ids.add(i.get("id").asText()));
        return ids;
    }

    @Test
    void aClientSeesItsOwnTenantNewestFirst() {
        JsonNode page = SERVICE.api().get("/v1/messages", "client-a").json();
        assertThat(ids(page)).containsExactly(ACME_IDS.get(4), ACME_IDS.get(3), ACME_IDS.get(2), ACME_IDS.get(1), ACME_IDS.get(0));
        assertThat(page.get("nextCursor").isNull()).isTrue();
        assertThat(page.get("items").get(0).get("status").asText()).isEqualTo("ACCEPTED");
    }

    @Test
    void filtersByRecipientAndReference() {
        assertThat(ids(SERVICE.api().get("/v1/messages?to=%2B49400", "client-a").json()))
                .containsExactly(ACME_IDS.get(4), ACME_IDS.get(2), ACME_IDS.get(0));
        assertThat(ids(SERVICE.api().get("/v1/messages?reference=ref-3", "client-a").json())).containsExactly(ACME_IDS.get(3));
    }

    @Test
    void keysetPaginationWalksEveryMessageOnce() {
        List<String> seen = new ArrayList<>();
        String cursor = null;
        do {
            JsonNode page = SERVICE.api().get("/v1/messages?limit=2" + (cursor == null ? "" : "&cursor=" + cursor), "client-a").json();
            assertThat(page.get("items").size()).isLessThanOrEqualTo(2);
            seen.addAll(ids(page));
            cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asText();
        } while (cursor != null);
        assertThat(seen).containsExactly(ACME_IDS.get(4), ACME_IDS.get(3), ACME_IDS.get(2), ACME_IDS.get(1), ACME_IDS.get(0));
    }

    @Test
    void timeRangeSelectsByAcceptanceTime() {
        assertThat(ids(SERVICE.api().get("/v1/messages?since=" + middle, "client-a").json()))
                .containsExactly(ACME_IDS.get(4), ACME_IDS.get(3));
        assertThat(ids(SERVICE.api().get("/v1/messages?until=" + middle, "client-a").json()))
                .containsExactly(ACME_IDS.get(2), ACME_IDS.get(1), ACME_IDS.get(0));
    }

    @Test
    void supportSearchesEveryTenantOrOne() {
        assertThat(ids(SERVICE.api().get("/v1/messages?reference=ref-0", "support-1").json())).hasSize(2);
        JsonNode globex = SERVICE.api().get("/v1/messages?tenant=globex", "support-1").json();
        assertThat(globex.get("items")).hasSize(1);
        assertThat(globex.get("items").get(0).get("tenant").asText()).isEqualTo("globex");
    }

    @Test
    void aClientCannotWidenItsScopeAndBadParametersAre400() {
        assertThat(SERVICE.api().get("/v1/messages?tenant=globex", "client-a").status()).isEqualTo(400);
        assertThat(SERVICE.api().get("/v1/messages?limit=501", "client-a").status()).isEqualTo(400);
        assertThat(SERVICE.api().get("/v1/messages?limit=abc", "client-a").status()).isEqualTo(400);
        assertThat(SERVICE.api().get("/v1/messages?since=yesterday", "client-a").status()).isEqualTo(400);
        ApiResponse cursor = SERVICE.api().get("/v1/messages?cursor=zzz", "client-a");
        assertThat(cursor.status()).isEqualTo(400);
        assertThat(cursor.contentType()).startsWith("application/problem+json");
    }
}
