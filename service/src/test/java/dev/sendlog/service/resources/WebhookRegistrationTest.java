package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.service.support.ApiClient;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.service.webhooks.SecretBox;
import dev.sendlog.service.webhooks.WebhookSecret;
import dev.sendlog.service.webhooks.WebhookSignature;
import dev.sendlog.service.webhooks.WebhookStore;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Status webhook registration (API.md, "Status webhooks"; issue 27) over real HTTP and PostgreSQL, with private targets
 * refused as in production (the URLs here are public address literals, so nothing resolves names). test-config.yml:
 * client-a is acme, client-b globex, support-1 and admin-1 staff.
 */
class WebhookRegistrationTest {
    @RegisterExtension
    static final ServiceHarness SERVICE =
            new ServiceHarness("components", "API", "webhooks.allowPrivateTargets", "false");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FINAL =
            "[\"DELIVERED\",\"UNDELIVERED\",\"UNKNOWN\",\"REJECTED\",\"DEAD\",\"EXPIRED\",\"CANCELLED\"]";

    static ApiResponse put(ApiClient api, String key, String body, String query) {
        return api.send(
                api.builder("/v1/webhook" + query, key, "Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)),
                body);
    }

    static ApiResponse put(String key, String body) {
        return put(SERVICE.api(), key, body, "");
    }

    static ApiResponse delete(String query, String key) {
        return SERVICE.api()
                .send(SERVICE.api().builder("/v1/webhook" + query, key).DELETE());
    }

    static ApiResponse rotate(String query, String key) {
        return SERVICE.api()
                .send(SERVICE.api()
                        .builder("/v1/webhook/rotate-secret" + query, key)
                        .POST(HttpRequest.BodyPublishers.noBody()));
    }

    private static WebhookStore store() {
        return new WebhookStore(
                DSL.using(SERVICE.dataSource(), SQLDialect.POSTGRES),
                SecretBox.fromBase64(SERVICE.configuration().webhooks.secretKey),
                SERVICE.clock());
    }

    /** The stored row's secret columns and its whole text, as PostgreSQL has them. */
    private record Row(byte[] secret, byte[] previous, Instant previousUntil, String text) {}

    private static Row row(String tenant) throws Exception {
        try (Connection c = SERVICE.dataSource().getConnection();
                PreparedStatement st =
                        c.prepareStatement("SELECT secret, previous_secret, previous_until, w::text FROM webhooks w "
                                + "WHERE tenant = ?")) {
            st.setString(1, tenant);
            try (ResultSet rs = st.executeQuery()) {
                assertThat(rs.next()).as("a row for " + tenant).isTrue();
                java.sql.Timestamp until = rs.getTimestamp(3);
                return new Row(
                        rs.getBytes(1), rs.getBytes(2), until == null ? null : until.toInstant(), rs.getString(4));
            }
        }
    }

    private static long lastChange() {
        return Sql.count(SERVICE.dataSource(), "SELECT coalesce(max(id), 0) FROM webhook_changes");
    }

    /** The tenant's changes recorded after change {@code afterId} (other tests of this class use the same tenants). */
    private static List<String> changes(String tenant, long afterId) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = SERVICE.dataSource().getConnection();
                PreparedStatement st =
                        c.prepareStatement("SELECT action, actor, ch::text FROM webhook_changes ch WHERE tenant = ? "
                                + "AND id > ? ORDER BY id")) {
            st.setString(1, tenant);
            st.setLong(2, afterId);
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1) + " " + rs.getString(2) + " | " + rs.getString(3));
                }
            }
        }
        return out;
    }

    @Test
    void registerReadChangeRotateAndDelete() throws Exception {
        long before = lastChange();
        ApiResponse registered = put("client-a", "{\"url\":\"https://203.0.113.10/hooks/sendlog\"}");
        assertThat(registered.status()).as(registered.raw()).isEqualTo(200);
        assertThat(registered.json().get("url").asText()).isEqualTo("https://203.0.113.10/hooks/sendlog");
        assertThat(registered.json().get("events"))
                .as("the final statuses by default")
                .isEqualTo(JSON.readTree(FINAL));
        String first = registered.json().get("secret").asText();
        assertThat(first).startsWith("whsec_").hasSize(49);

        ApiResponse read = SERVICE.api().get("/v1/webhook", "client-a");
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().has("secret")).as("never shown again").isFalse();
        assertThat(read.raw()).doesNotContain(first);
        assertThat(read.json().get("url").asText()).isEqualTo("https://203.0.113.10/hooks/sendlog");

        ApiResponse changed = put(
                "client-a",
                "{\"url\":\"https://203.0.113.11/v2\",\"events\":[\"UNDELIVERED\",\"DELIVERED\",\"SENT\"]}");
        assertThat(changed.status()).as(changed.raw()).isEqualTo(200);
        assertThat(changed.json().has("secret"))
                .as("a change keeps the secret and does not show it")
                .isFalse();
        assertThat(changed.json().get("events"))
                .as("in the API's order")
                .isEqualTo(JSON.readTree("[\"SENT\",\"DELIVERED\",\"UNDELIVERED\"]"));
        assertThat(SERVICE.api()
                        .get("/v1/webhook", "client-a")
                        .json()
                        .get("url")
                        .asText())
                .isEqualTo("https://203.0.113.11/v2");
        assertThat(store().signingSecrets("acme", SERVICE.now()))
                .as("the PUT did not rotate")
                .containsExactly(WebhookSecret.of(first));

        Instant rotatedAt = SERVICE.now().truncatedTo(java.time.temporal.ChronoUnit.MICROS);
        ApiResponse rotated = rotate("", "client-a");
        assertThat(rotated.status()).as(rotated.raw()).isEqualTo(200);
        String second = rotated.json().get("secret").asText();
        assertThat(second).startsWith("whsec_").isNotEqualTo(first);
        assertThat(rotated.json().get("url").asText()).isEqualTo("https://203.0.113.11/v2");

        // What the delivery worker will sign with: both secrets, the new one first, each verifying for its holder.
        List<WebhookSecret> signing = store().signingSecrets("acme", SERVICE.now());
        assertThat(signing).containsExactly(WebhookSecret.of(second), WebhookSecret.of(first));
        byte[] body = "{\"eventId\":\"x:3\",\"status\":\"DELIVERED\"}".getBytes(StandardCharsets.UTF_8);
        long t = SERVICE.now().getEpochSecond();
        String header = WebhookSignature.header(t, body, signing);
        assertThat(WebhookSignature.verify(header, body, WebhookSecret.of(first), t, 300))
                .isTrue();
        assertThat(WebhookSignature.verify(header, body, WebhookSecret.of(second), t, 300))
                .isTrue();
        Row row = row("acme");
        assertThat(Duration.between(rotatedAt, row.previousUntil()))
                .isBetween(Duration.ofHours(24), Duration.ofHours(24).plusMinutes(1));
        assertThat(store().signingSecrets("acme", row.previousUntil()))
                .as("the old one stops after 24 h")
                .containsExactly(WebhookSecret.of(second));

        assertThat(delete("", "client-a").status()).isEqualTo(204);
        assertThat(SERVICE.api().get("/v1/webhook", "client-a").status()).isEqualTo(404);
        assertThat(delete("", "client-a").status()).isEqualTo(404);
        assertThat(rotate("", "client-a").status()).isEqualTo(404);
        assertThat(store().signingSecrets("acme", SERVICE.now())).isEmpty();

        List<String> history = changes("acme", before);
        assertThat(history).hasSize(4);
        assertThat(history.stream().map(h -> h.substring(0, h.indexOf(' '))).toList())
                .containsExactly("REGISTERED", "CHANGED", "ROTATED", "DELETED");
        assertThat(history).allSatisfy(h -> assertThat(h.split(" ")[1]).startsWith("client:"));
        for (String h : history) {
            assertThat(h).doesNotContain(first.substring(6)).doesNotContain(second.substring(6));
        }

        ApiResponse again = put("client-a", "{\"url\":\"https://203.0.113.10/hooks/sendlog\"}");
        assertThat(again.json().get("secret").asText())
                .as("a registration after a delete is new")
                .isNotIn(first, second);
        assertThat(delete("", "client-a").status()).isEqualTo(204);
    }

    @Test
    void theSecretIsStoredEncryptedAndNeverLogged() throws Exception {
        SecretCatcher log = SecretCatcher.attach();
        String first;
        String second;
        try {
            first = put("client-b", "{\"url\":\"https://203.0.113.20/in\",\"events\":[\"DELIVERED\"]}")
                    .json()
                    .get("secret")
                    .asText();
            second = rotate("", "client-b").json().get("secret").asText();
        } finally {
            log.detach();
        }
        Row row = row("globex");
        for (String secret : List.of(first, second)) {
            String random = secret.substring("whsec_".length());
            assertThat(row.text()).doesNotContain(random);
            assertThat(new String(row.secret(), StandardCharsets.ISO_8859_1)).doesNotContain(random);
            assertThat(new String(row.previous(), StandardCharsets.ISO_8859_1)).doesNotContain(random);
            assertThat(row.text())
                    .doesNotContain(java.util.HexFormat.of().formatHex(secret.getBytes(StandardCharsets.UTF_8)));
            assertThat(log.lines()).noneMatch(line -> line.contains(random));
        }
        assertThat(log.lines()).as("the catcher heard the requests").isNotEmpty();
        assertThat(row.secret().length)
                .as("12-byte nonce, 49 bytes, 16-byte tag")
                .isEqualTo(12 + 49 + 16);
        SecretBox box = SecretBox.fromBase64(SERVICE.configuration().webhooks.secretKey);
        assertThat(box.open(row.secret(), "globex").reveal()).isEqualTo(second);
        assertThat(box.open(row.previous(), "globex").reveal()).isEqualTo(first);
        assertThat(SERVICE.configuration().webhooks.toString())
                .doesNotContain(SERVICE.configuration().webhooks.secretKey);
        assertThat(delete("", "client-b").status()).isEqualTo(204);
    }

    @Test
    void theSameUrlAndEventsAgainWriteNothingAndShowNoSecret() throws Exception {
        long before = lastChange();
        ApiResponse first = put(SERVICE.api(), "admin-1", "{\"url\":\"https://203.0.113.30/x\"}", "?tenant=suspended");
        assertThat(first.status()).as(first.raw()).isEqualTo(200);
        ApiResponse second = put(
                SERVICE.api(),
                "admin-1",
                "{\"url\":\"https://203.0.113.30/x\",\"events\":" + FINAL + "}",
                "?tenant=suspended");
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.json().has("secret")).isFalse();
        assertThat(changes("suspended", before))
                .hasSize(1)
                .allSatisfy(h -> assertThat(h).startsWith("REGISTERED admin:"));
        assertThat(delete("?tenant=suspended", "admin-1").status()).isEqualTo(204);
    }

    /** Of first registrations racing, one makes the secret and the others find it: one secret shown, one REGISTERED. */
    @Test
    void racingFirstRegistrationsShowOneSecret() throws Exception {
        long before = lastChange();
        List<java.util.concurrent.Future<ApiResponse>> answers = new ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(8)) {
            for (int i = 0; i < 8; i++) {
                answers.add(pool.submit(() ->
                        put(SERVICE.api(), "admin-1", "{\"url\":\"https://203.0.113.60/race\"}", "?tenant=suspended")));
            }
        }
        int secrets = 0;
        for (var answer : answers) {
            ApiResponse r = answer.get();
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
            secrets += r.json().has("secret") ? 1 : 0;
        }
        assertThat(secrets).isEqualTo(1);
        assertThat(changes("suspended", before)).singleElement().asString().startsWith("REGISTERED");

        // A second rotation within the 24 hours drops the oldest secret at once: at most two sign.
        String second =
                rotate("?tenant=suspended", "admin-1").json().get("secret").asText();
        String third =
                rotate("?tenant=suspended", "admin-1").json().get("secret").asText();
        assertThat(store().signingSecrets("suspended", SERVICE.now()))
                .containsExactly(WebhookSecret.of(third), WebhookSecret.of(second));
        assertThat(delete("?tenant=suspended", "admin-1").status()).isEqualTo(204);
    }

    /**
     * A PUT whose insert ran into the row, and which then waits to lock it while a DELETE commits, registers anew instead
     * of failing (found by the client API fuzz test as a 500). The test holds the row locked, lets the PUT reach its
     * lock, then deletes and commits: the order every such race comes down to.
     */
    @Test
    void aPutThatLosesItsRowToADeleteRegistersAnew() throws Exception {
        assertThat(put(SERVICE.api(), "admin-1", "{\"url\":\"https://203.0.113.70/old\"}", "?tenant=suspended")
                        .status())
                .isEqualTo(200);
        long before = lastChange();
        try (Connection deleter = SERVICE.dataSource().getConnection();
                var pool = java.util.concurrent.Executors.newSingleThreadExecutor()) {
            deleter.setAutoCommit(false);
            try (PreparedStatement lock =
                    deleter.prepareStatement("SELECT 1 FROM webhooks WHERE tenant = 'suspended' FOR UPDATE")) {
                assertThat(lock.executeQuery().next()).isTrue();
            }
            var answer = pool.submit(
                    () -> put(SERVICE.api(), "admin-1", "{\"url\":\"https://203.0.113.70/new\"}", "?tenant=suspended"));
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> Sql.count(
                                    SERVICE.dataSource(),
                                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                            + "AND query ILIKE 'select%webhooks%for update%'")
                            == 1);
            try (PreparedStatement delete =
                    deleter.prepareStatement("DELETE FROM webhooks WHERE tenant = 'suspended'")) {
                assertThat(delete.executeUpdate()).isEqualTo(1);
            }
            deleter.commit();
            ApiResponse r = answer.get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
            assertThat(r.json().get("url").asText()).isEqualTo("https://203.0.113.70/new");
            assertThat(r.json().get("secret").asText())
                    .as("a new registration shows its new secret")
                    .startsWith("whsec_");
        }
        assertThat(changes("suspended", before)).singleElement().asString().startsWith("REGISTERED admin:");
        assertThat(row("suspended").text()).contains("https://203.0.113.70/new");
        assertThat(delete("?tenant=suspended", "admin-1").status()).isEqualTo(204);
    }

    @Test
    void aTenantSeesOnlyItsOwnAndRolesAreAsApiMdSays() {
        assertThat(put(SERVICE.api(), "admin-1", "{\"url\":\"https://203.0.113.40/a\"}", "?tenant=acme")
                        .status())
                .isEqualTo(200);
        try {
            assertThat(SERVICE.api().get("/v1/webhook", "client-b").status())
                    .as("globex has none")
                    .isEqualTo(404);
            assertThat(SERVICE.api().get("/v1/webhook?tenant=acme", "client-b").status())
                    .isEqualTo(400);
            assertThat(put(SERVICE.api(), "client-b", "{\"url\":\"https://203.0.113.41/b\"}", "?tenant=acme")
                            .status())
                    .isEqualTo(400);
            assertThat(delete("?tenant=acme", "client-b").status()).isEqualTo(400);
            assertThat(rotate("?tenant=acme", "client-b").status()).isEqualTo(400);
            assertThat(SERVICE.api()
                            .get("/v1/webhook", "client-a")
                            .json()
                            .get("url")
                            .asText())
                    .as("an admin registered it for acme")
                    .isEqualTo("https://203.0.113.40/a");

            ApiResponse support = SERVICE.api().get("/v1/webhook?tenant=acme", "support-1");
            assertThat(support.status()).isEqualTo(200);
            assertThat(support.json().has("secret")).isFalse();
            assertThat(put(SERVICE.api(), "support-1", "{\"url\":\"https://203.0.113.42/c\"}", "?tenant=acme")
                            .status())
                    .as("support reads, never changes")
                    .isEqualTo(403);
            assertThat(rotate("?tenant=acme", "support-1").status()).isEqualTo(403);
            assertThat(delete("?tenant=acme", "support-1").status()).isEqualTo(403);
            assertThat(SERVICE.api().get("/v1/webhook", "support-1").status())
                    .as("staff name the tenant")
                    .isEqualTo(400);
            assertThat(SERVICE.api().get("/v1/webhook?tenant=nosuch", "admin-1").status())
                    .isEqualTo(400);
            assertThat(SERVICE.api().get("/v1/webhook", null).status()).isEqualTo(401);
            assertThat(put(null, "{\"url\":\"https://203.0.113.42/c\"}").status())
                    .isEqualTo(401);
            ApiResponse adminRotate = rotate("?tenant=acme", "admin-1");
            assertThat(adminRotate.status()).isEqualTo(200);
            assertThat(adminRotate.json().get("secret").asText()).startsWith("whsec_");
        } finally {
            assertThat(delete("?tenant=acme", "admin-1").status()).isEqualTo(204);
        }
    }

    @Test
    void badInputIsA400NamingTheField() throws Exception {
        record Case(ApiResponse answer, String field) {}
        List<Case> cases = List.of(
                new Case(put("client-a", "{}"), "url"),
                new Case(put("client-a", "{\"url\":null}"), "url"),
                new Case(put("client-a", "{\"url\":7}"), "url"),
                new Case(put("client-a", "{\"url\":\"ftp://203.0.113.10/x\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"javascript:alert(1)\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"https://u:p@203.0.113.10/x\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"https://203.0.113.10:0/x\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"https://203.0.113.10/" + "a".repeat(2048) + "\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"http://127.0.0.1:8080/hook\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"http://10.0.0.5/hook\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"http://169.254.169.254/latest/meta-data/\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"http://[::1]/hook\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"http://[::ffff:192.168.1.1]/hook\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"http://[fd00:ec2::254]/\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"http://localhost/hook\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"http://metadata.google.internal/\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"http://2130706433/\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"https://a\\u0000b/\"}"), "url"),
                new Case(put("client-a", "{\"url\":\"https://203.0.113.10/x\",\"events\":[]}"), "events"),
                new Case(put("client-a", "{\"url\":\"https://203.0.113.10/x\",\"events\":\"DELIVERED\"}"), "events"),
                new Case(
                        put("client-a", "{\"url\":\"https://203.0.113.10/x\",\"events\":[\"DELIVERD\"]}"), "events[0]"),
                new Case(
                        put("client-a", "{\"url\":\"https://203.0.113.10/x\",\"events\":[\"delivered\"]}"),
                        "events[0]"),
                new Case(put("client-a", "{\"url\":\"https://203.0.113.10/x\",\"events\":[\"SENT\",7]}"), "events[1]"),
                new Case(
                        put(
                                "client-a",
                                "{\"url\":\"https://203.0.113.10/x\",\"events\":[\"SENT\",\"DELIVERED\",\"SENT\"]}"),
                        "events[2]"),
                new Case(
                        put(
                                "client-a",
                                "{\"url\":\"https://203.0.113.10/x\",\"events\":" + "[\"SENT\",".repeat(1)
                                        + "\"SENT\",".repeat(20) + "\"SENT\"]}"),
                        "events"),
                new Case(put("client-a", "{\"url\":\"https://203.0.113.10/x\",\"secret\":\"whsec_mine\"}"), "secret"),
                new Case(put("client-a", "[\"https://203.0.113.10/x\"]"), ""),
                new Case(put(SERVICE.api(), "admin-1", "{\"url\":\"https://203.0.113.10/x\"}", ""), "tenant"),
                new Case(
                        put(SERVICE.api(), "admin-1", "{\"url\":\"https://203.0.113.10/x\"}", "?tenant=nosuch"),
                        "tenant"),
                new Case(
                        put(SERVICE.api(), "client-a", "{\"url\":\"https://203.0.113.10/x\"}", "?tenant=globex"),
                        "tenant"),
                new Case(delete("?tenant=%00", "admin-1"), "tenant"),
                new Case(rotate("", "admin-1"), "tenant"));
        for (Case c : cases) {
            assertThat(c.answer().status()).as(c.answer().raw()).isEqualTo(400);
            assertThat(c.answer().contentType()).startsWith("application/problem+json");
            assertThat(c.answer().json().get("errors").findValuesAsText("field"))
                    .as(c.answer().raw())
                    .contains(c.field());
        }
        ApiResponse noType = SERVICE.api()
                .send(SERVICE.api()
                        .builder("/v1/webhook", "client-a")
                        .PUT(HttpRequest.BodyPublishers.ofString("{\"url\":\"https://203.0.113.10/x\"}")));
        assertThat(noType.status()).isEqualTo(415);
        ApiResponse text = SERVICE.api()
                .send(SERVICE.api()
                        .builder("/v1/webhook", "client-a", "Content-Type", "text/plain")
                        .PUT(HttpRequest.BodyPublishers.ofString("{\"url\":\"https://203.0.113.10/x\"}")));
        assertThat(text.status()).isEqualTo(415);
        assertThat(put("client-a", "{\"url\":").status()).isEqualTo(400);
        assertThat(put("client-a", "{\"url\":\"https://203.0.113.10/x\"} {}").status())
                .as("bytes after the value")
                .isEqualTo(400);
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM webhooks WHERE tenant = 'acme'"))
                .as("nothing stored")
                .isZero();
    }

    /** The code's default and production's setting refuse private targets; with the flag (the demo, tests) they are allowed. */
    @Test
    void privateTargetsAreAllowedOnlyWithTheFlag() throws Exception {
        ApiResponse refused = put("client-b", "{\"url\":\"http://127.0.0.1:9/hook\"}");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("errors").get(0).get("problem").asText()).contains("loopback");
        try (ServiceHarness.Instance allowing = SERVICE.startAnother(null, "webhooks.allowPrivateTargets", "true")) {
            ApiResponse allowed = put(allowing.api(), "client-b", "{\"url\":\"http://127.0.0.1:9/hook\"}", "");
            assertThat(allowed.status()).as(allowed.raw()).isEqualTo(200);
            ApiResponse form = put(allowing.api(), "client-b", "{\"url\":\"file:///etc/passwd\"}", "");
            assertThat(form.status())
                    .as("the flag allows addresses, not schemes")
                    .isEqualTo(400);
            assertThat(allowing.api()
                            .send(allowing.api()
                                    .builder("/v1/webhook", "client-b")
                                    .DELETE())
                            .status())
                    .isEqualTo(204);
        }
    }

    /** Every line logged while it runs, formatted, with any exception's message. */
    static final class SecretCatcher extends AppenderBase<ILoggingEvent> {
        private final List<String> lines = new ArrayList<>();

        /** Our loggers at TRACE, the access log on and jOOQ at DEBUG (it logs each statement with its bind values). */
        private static final List<String> LOUD = List.of("dev.sendlog", "dev.sendlog.access", "org.jooq");

        private final List<ch.qos.logback.classic.Level> levels = new ArrayList<>();

        static SecretCatcher attach() {
            SecretCatcher c = new SecretCatcher();
            LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
            c.setContext(context);
            c.start();
            for (String name : LOUD) {
                ch.qos.logback.classic.Logger logger = context.getLogger(name);
                c.levels.add(logger.getLevel());
                logger.setLevel(
                        name.equals("org.jooq")
                                ? ch.qos.logback.classic.Level.DEBUG
                                : ch.qos.logback.classic.Level.TRACE);
            }
            context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(c);
            return c;
        }

        void detach() {
            LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
            context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).detachAppender(this);
            for (int i = 0; i < LOUD.size(); i++) {
                context.getLogger(LOUD.get(i)).setLevel(levels.get(i));
            }
            stop();
        }

        @Override
        protected synchronized void append(ILoggingEvent e) {
            lines.add(e.getFormattedMessage()
                    + (e.getThrowableProxy() == null
                            ? ""
                            : " " + e.getThrowableProxy().getMessage()));
        }

        synchronized List<String> lines() {
            return List.copyOf(lines);
        }
    }
}
