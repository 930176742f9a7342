package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
    private static String noReferenceId;

    @BeforeAll
    static void messages() {
        for (int i = 0; i < 5; i++) {
            if (i == 3) {
                SERVICE.clock().advance(Duration.ofMinutes(1));
                middle = SERVICE.now();
                SERVICE.clock().advance(Duration.ofMinutes(1));
            }
            ACME_IDS.add(submit("client-a", "+4915140" + (i % 2), "ref-" + i));
            SERVICE.clock().advance(Duration.ofMillis(5));
        }
        submit("client-b", "+49151400", "ref-0");
        ApiResponse r =
                SERVICE.api().post("/v1/messages", "client-b", "{\"to\":\"+49151499\",\"body\":\"no reference\"}");
        assertThat(r.status()).isEqualTo(202);
        noReferenceId = r.json().get("id").asText();
    }

    private static String submit(String key, String to, String reference) {
        ApiResponse r = SERVICE.api()
                .post(
                        "/v1/messages",
                        key,
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
        assertThat(ids(page))
                .containsExactly(ACME_IDS.get(4), ACME_IDS.get(3), ACME_IDS.get(2), ACME_IDS.get(1), ACME_IDS.get(0));
        assertThat(page.get("nextCursor").isNull()).isTrue();
        assertThat(page.get("items").get(0).get("status").asText()).isEqualTo("ACCEPTED");
    }

    @Test
    void filtersByRecipientAndReference() {
        assertThat(ids(SERVICE.api()
                        .get("/v1/messages?to=%2B49151400", "client-a")
                        .json()))
                .containsExactly(ACME_IDS.get(4), ACME_IDS.get(2), ACME_IDS.get(0));
        assertThat(ids(SERVICE.api()
                        .get("/v1/messages?reference=ref-3", "client-a")
                        .json()))
                .containsExactly(ACME_IDS.get(3));
    }

    /**
     * The reference index holds only messages with a reference. A search by reference must still use it, also as the
     * generic plan of a prepared statement, where the planner cannot look at the value (jOOQ binds it as a parameter).
     */
    @Test
    void aSearchByReferenceUsesThePartialIndexEvenAsAGenericPlan() throws SQLException {
        try (Connection c = SERVICE.dataSource().getConnection();
                Statement st = c.createStatement()) {
            st.execute("SET enable_seqscan = off");
            st.execute("SET plan_cache_mode = force_generic_plan");
            st.execute(
                    "PREPARE by_reference(varchar) AS SELECT * FROM messages WHERE reference = $1 ORDER BY id DESC LIMIT 51");
            StringBuilder plan = new StringBuilder();
            try (ResultSet rs = st.executeQuery("EXPLAIN EXECUTE by_reference('ref-3')")) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
            assertThat(plan.toString()).contains("reference_id");
        }
    }

    @Test
    void aMessageWithoutAReferenceIsFoundByEverythingElse() {
        assertThat(ids(SERVICE.api()
                        .get("/v1/messages?to=%2B49151499", "client-b")
                        .json()))
                .containsExactly(noReferenceId);
        assertThat(ids(SERVICE.api().get("/v1/messages", "client-b").json()))
                .contains(noReferenceId)
                .hasSize(2);
        assertThat(ids(SERVICE.api()
                        .get("/v1/messages?reference=ref-0", "client-b")
                        .json()))
                .doesNotContain(noReferenceId)
                .hasSize(1);
    }

    @Test
    void keysetPaginationWalksEveryMessageOnce() {
        List<String> seen = new ArrayList<>();
        String cursor = null;
        do {
            JsonNode page = SERVICE.api()
                    .get("/v1/messages?limit=2" + (cursor == null ? "" : "&cursor=" + cursor), "client-a")
                    .json();
            assertThat(page.get("items").size()).isLessThanOrEqualTo(2);
            seen.addAll(ids(page));
            cursor = page.get("nextCursor").isNull()
                    ? null
                    : page.get("nextCursor").asText();
        } while (cursor != null);
        assertThat(seen)
                .containsExactly(ACME_IDS.get(4), ACME_IDS.get(3), ACME_IDS.get(2), ACME_IDS.get(1), ACME_IDS.get(0));
    }

    @Test
    void timeRangeSelectsByAcceptanceTime() {
        assertThat(ids(SERVICE.api()
                        .get("/v1/messages?since=" + middle, "client-a")
                        .json()))
                .containsExactly(ACME_IDS.get(4), ACME_IDS.get(3));
        assertThat(ids(SERVICE.api()
                        .get("/v1/messages?until=" + middle, "client-a")
                        .json()))
                .containsExactly(ACME_IDS.get(2), ACME_IDS.get(1), ACME_IDS.get(0));
    }

    @Test
    void supportSearchesEveryTenantOrOne() {
        assertThat(ids(SERVICE.api()
                        .get("/v1/messages?reference=ref-0", "support-1")
                        .json()))
                .hasSize(2);
        JsonNode globex =
                SERVICE.api().get("/v1/messages?tenant=globex", "support-1").json();
        assertThat(globex.get("items")).hasSize(2);
        globex.get("items").forEach(i -> assertThat(i.get("tenant").asText()).isEqualTo("globex"));
    }

    @Test
    void aClientCannotWidenItsScopeAndBadParametersAre400() {
        assertThat(SERVICE.api().get("/v1/messages?tenant=globex", "client-a").status())
                .isEqualTo(400);
        assertThat(SERVICE.api().get("/v1/messages?limit=501", "client-a").status())
                .isEqualTo(400);
        assertThat(SERVICE.api().get("/v1/messages?limit=abc", "client-a").status())
                .isEqualTo(400);
        assertThat(SERVICE.api().get("/v1/messages?since=yesterday", "client-a").status())
                .isEqualTo(400);
        ApiResponse cursor = SERVICE.api().get("/v1/messages?cursor=zzz", "client-a");
        assertThat(cursor.status()).isEqualTo(400);
        assertThat(cursor.contentType()).startsWith("application/problem+json");
    }
}
