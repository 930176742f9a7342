package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.service.accept.SenderPolicy;
import dev.sendlog.service.config.TenantSettings;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sender id ({@code from}): checked at submit, the tenant's {@code defaultSender} when the message names none, a
 * tenant's {@code senders} list enforced, stored with the message, shown by GET one and search, and passed to the
 * provider (the simulator records what it was sent). test-config.yml: acme's default is "Acme"; globex may name only
 * "GlobexOTP" and "+4915100000009"; the suspended tenant has no sender settings.
 */
class SenderIdTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness();

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ApiResponse submit(String key, String fields, String... headers) {
        return SERVICE.api()
                .post(
                        "/v1/messages",
                        key,
                        "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"Your code is 1234\"" + fields + "}",
                        headers);
    }

    @Test
    void aNamedSenderIsKeptShownAndPassedToTheProvider() {
        ApiResponse r = submit("client-a", ",\"from\":\"Shop 24\",\"reference\":\"from-1\"");
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        String id = r.json().get("id").asText();

        assertThat(SERVICE.api()
                        .get("/v1/messages/" + id, "client-a")
                        .json()
                        .get("from")
                        .asText())
                .isEqualTo("Shop 24");
        JsonNode found = SERVICE.api()
                .get("/v1/messages?reference=from-1", "client-a")
                .json()
                .get("items")
                .get(0);
        assertThat(found.get("from").asText()).isEqualTo("Shop 24");
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        assertThat(providerSaw(id)).contains("Shop 24");
    }

    @Test
    void aMessageNamingNoSenderGoesOutAsItsTenantsDefaultOrWithNoneAtAll() {
        String acme = submit("client-a", "").json().get("id").asText();
        String globex = submit("client-b", "").json().get("id").asText();

        assertThat(SERVICE.api()
                        .get("/v1/messages/" + acme, "client-a")
                        .json()
                        .get("from")
                        .asText())
                .isEqualTo("Acme");
        assertThat(SERVICE.api()
                        .get("/v1/messages/" + globex, "client-b")
                        .json()
                        .has("from"))
                .as("no sender named and no default: the field is absent")
                .isFalse();
        Messages.awaitStatus(SERVICE, acme, "SENT", Duration.ofSeconds(30));
        Messages.awaitStatus(SERVICE, globex, "SENT", Duration.ofSeconds(30));
        assertThat(providerSaw(acme)).contains("Acme");
        assertThat(providerSaw(globex)).as("the provider's own default applies").isEmpty();
    }

    @Test
    void aTenantWithASendersListMayNameOnlyThoseAndNothingIsStoredOtherwise() {
        assertThat(submit("client-b", ",\"from\":\"GlobexOTP\"").status()).isEqualTo(202);
        assertThat(submit("client-b", ",\"from\":\"+4915100000009\"").status()).isEqualTo(202);

        long before = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages");
        ApiResponse refused = submit("client-b", ",\"from\":\"Acme\"");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("errors").get(0).get("field").asText()).isEqualTo("from");
        assertThat(refused.json().get("errors").get(0).get("problem").asText()).contains("GlobexOTP");

        ApiResponse batch = SERVICE.api()
                .post(
                        "/v1/messages/batch",
                        "client-b",
                        "{\"messages\":["
                                + "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"a\",\"from\":\"GlobexOTP\"},"
                                + "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"b\",\"from\":\"Other\"}]}");
        assertThat(batch.status()).isEqualTo(400);
        assertThat(batch.json().get("errors").get(0).get("field").asText()).isEqualTo("messages[1].from");
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages"))
                .as("nothing of either")
                .isEqualTo(before);
    }

    @Test
    void aSenderIdOfTheWrongShapeIsRefusedAtSubmit() {
        for (String bad : List.of("TwelveChars1", "12", "123456789", "+0123456789", "no-dash", "Spaß", "    ")) {
            ApiResponse r = submit("client-suspended", ",\"from\":" + JSON.valueToTree(bad));
            assertThat(r.status()).as(bad + ": " + r.raw()).isEqualTo(400);
            assertThat(r.json().get("errors").get(0).get("field").asText()).isEqualTo("from");
        }
        for (String good : List.of("A", "Shop 24", "ABCDEFGHIJK", "+4915112345678", "123", "12345678")) {
            assertThat(submit("client-suspended", ",\"from\":" + JSON.valueToTree(good))
                            .status())
                    .as(good)
                    .isEqualTo(202);
        }
        assertThat(submit("client-suspended", ",\"from\":7").status())
                .as("not a string")
                .isEqualTo(400);
    }

    @Test
    void theSenderIsPartOfTheRequestAnIdempotencyKeyStandsFor() {
        String to = Messages.recipient();
        java.util.function.Function<String, ApiResponse> send = fields -> SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-suspended",
                        "{\"to\":\"" + to + "\",\"body\":\"b\"" + fields + "}",
                        "Idempotency-Key",
                        "sender-key");
        assertThat(send.apply(",\"from\":\"Shop\"").status()).isEqualTo(202);
        assertThat(send.apply(",\"from\":\"Shop\"").header("Idempotent-Replayed"))
                .isEqualTo("true");
        assertThat(send.apply(",\"from\":\"Other\"").status())
                .as("the same key with another sender")
                .isEqualTo(409);
        assertThat(send.apply("").status())
                .as("the same key without the sender")
                .isEqualTo(409);
    }

    @Test
    void aConfigurationWhoseDefaultIsNotAValidOrAllowedSenderIsRefused() {
        TenantSettings notValid = new TenantSettings();
        notValid.defaultSender = "far too long a name";
        assertThatThrownBy(() -> new SenderPolicy(Map.of("t", notValid)))
                .hasMessageContaining("tenants.t.defaultSender");

        TenantSettings notListed = new TenantSettings();
        notListed.defaultSender = "Acme";
        notListed.senders = List.of("Other");
        assertThatThrownBy(() -> new SenderPolicy(Map.of("t", notListed)))
                .hasMessageContaining("not in its senders list");
    }

    /** The "from" the simulator recorded for this message's submit (empty: it was sent none). */
    private static Optional<String> providerSaw(String messageId) {
        Map<String, JsonNode> byReference = new HashMap<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            HttpResponse<String> r = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(
                                            URI.create(SERVICE.simulator().baseUrl() + "/v1/records"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            for (String line : r.body().split("\n")) {
                if (!line.isBlank()) {
                    JsonNode record = JSON.readTree(line);
                    byReference.put(record.path("reference").asText(), record);
                }
            }
            return byReference.containsKey(messageId);
        });
        JsonNode from = byReference.get(messageId).get("from");
        return from == null || from.isNull() ? Optional.empty() : Optional.of(from.asText());
    }
}
