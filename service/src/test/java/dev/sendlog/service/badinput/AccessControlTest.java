package dev.sendlog.service.badinput;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Who may do what (API.md): no key or a wrong key is 401 everywhere; a client never learns that another tenant's
 * message exists (404, not 403); admin endpoints refuse client keys, and the repairs refuse support keys (403).
 */
class AccessControlTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,MAINTENANCE");

    private static String acmeMessage;

    /** An endpoint as method, path and body (null for none). */
    private record Call(String method, String path, String body) {
        ApiResponse as(String key) {
            return switch (method) {
                case "GET" -> SERVICE.api().get(path, key);
                case "POST" -> SERVICE.api().post(path, key, body);
                default ->
                    SERVICE.api()
                            .send(
                                    SERVICE.api()
                                            .builder(path, key, "Content-Type", "application/json")
                                            .method(
                                                    method,
                                                    body == null
                                                            ? java.net.http.HttpRequest.BodyPublishers.noBody()
                                                            : java.net.http.HttpRequest.BodyPublishers.ofString(body)),
                                    body);
            };
        }

        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    @BeforeAll
    static void aMessageOfTenantAcme() {
        acmeMessage = Messages.submitOne(SERVICE, Messages.recipient());
    }

    private static List<Call> everyEndpoint() {
        return List.of(
                new Call("POST", "/v1/messages", "{\"to\":\"+4912\",\"body\":\"b\"}"),
                new Call("POST", "/v1/messages/batch", "{\"messages\":[{\"to\":\"+4912\",\"body\":\"b\"}]}"),
                new Call("GET", "/v1/messages/" + acmeMessage, null),
                new Call("GET", "/v1/messages/" + acmeMessage + "/events", null),
                new Call("GET", "/v1/messages?limit=5", null),
                new Call("GET", "/v1/admin/dead", null),
                new Call("GET", "/v1/admin/parked", null),
                new Call("POST", "/v1/admin/messages/" + acmeMessage + "/redrive", ""),
                new Call("POST", "/v1/admin/parked/1/resolve", "{\"action\":\"discard\",\"note\":\"n\"}"),
                new Call("PUT", "/v1/suppressions/+4915112345678?tenant=acme", "{\"reason\":\"user replied STOP\"}"),
                new Call("DELETE", "/v1/suppressions/+4915112345678?tenant=acme", null),
                new Call("GET", "/v1/suppressions?tenant=acme", null),
                new Call("GET", "/v1/suppressions/+4915112345678/changes?tenant=acme", null),
                new Call("PUT", "/v1/webhook?tenant=acme", "{\"url\":\"https://203.0.113.50/hooks\"}"),
                new Call("POST", "/v1/webhook/rotate-secret?tenant=acme", ""),
                new Call("DELETE", "/v1/webhook?tenant=acme", null),
                new Call("GET", "/v1/webhook?tenant=acme", null));
    }

    @Test
    void noKeyOrAWrongKeyIs401ProblemJsonWithAChallengeOnEveryEndpoint() {
        for (Call call : everyEndpoint()) {
            for (String key : new String[] {null, "wrong-key", "", "CLIENT-A", "client-a.", "a".repeat(300)}) {
                ApiResponse r = call.as(key);
                assertThat(r.status()).as(call + " with key [" + key + "]").isEqualTo(401);
                assertThat(r.contentType()).startsWith("application/problem+json");
                assertThat(r.json().get("status").asInt()).isEqualTo(401);
                assertThat(r.header("WWW-Authenticate")).startsWith("Bearer");
            }
        }
    }

    @Test
    void aKeyThatDiffersOnlyInCaseIsRefusedEvenRightAfterTheRealKeyOnTheSameConnection() {
        RawRequest.Builder real = RawRequest.get("/v1/messages?limit=1").header("Authorization", "Bearer client-b");
        List<RawResponse> answers = new RawHttp(SERVICE.api().baseUrl())
                .sendOnOneConnection(List.of(
                        real.build(),
                        RawRequest.get("/v1/messages?limit=1")
                                .header("Authorization", "Bearer CLIENT-B")
                                .build(),
                        RawRequest.get("/v1/messages?limit=1")
                                .header("Authorization", "Bearer Client-B")
                                .build()));
        assertThat(answers).extracting(RawResponse::status).containsExactly(200, 401, 401);
    }

    @Test
    void aKeyInTheQueryStringIsNotAKey() {
        for (String path : List.of(
                "/v1/messages?access_token=client-a", "/v1/messages/" + acmeMessage + "?access_token=client-a")) {
            ApiResponse r = SERVICE.api().get(path, null);
            assertThat(r.status()).as(path).isEqualTo(401);
            assertThat(r.contentType()).startsWith("application/problem+json");
        }
    }

    @Test
    void aClientReadingAnotherTenantsMessageGets404AsForAMissingOneNot403() {
        ApiResponse missing = SERVICE.api().get("/v1/messages/" + java.util.UUID.randomUUID(), "client-b");
        for (String path : List.of("/v1/messages/" + acmeMessage, "/v1/messages/" + acmeMessage + "/events")) {
            ApiResponse foreign = SERVICE.api().get(path, "client-b");
            assertThat(foreign.status()).as(path).isEqualTo(404);
            assertThat(foreign.contentType()).startsWith("application/problem+json");
            assertThat(foreign.json().get("title")).isEqualTo(missing.json().get("title"));
        }
        assertThat(SERVICE.api().get("/v1/messages/" + acmeMessage, "client-a").status())
                .isEqualTo(200);
        assertThat(SERVICE.api().get("/v1/messages/" + acmeMessage, "support-1").status())
                .isEqualTo(200);
    }

    @Test
    void aClientSearchNeverReturnsAnotherTenantsMessages() {
        String to = SERVICE.api()
                .get("/v1/messages/" + acmeMessage, "client-a")
                .json()
                .get("to")
                .asText();
        ApiResponse byRecipient = SERVICE.api().get("/v1/messages?to=" + UrlJunk.encode(to), "client-b");
        assertThat(byRecipient.status()).isEqualTo(200);
        assertThat(byRecipient.json().get("items")).isEmpty();
        ApiResponse otherTenant = SERVICE.api().get("/v1/messages?tenant=acme", "client-b");
        assertThat(otherTenant.status()).isEqualTo(400);
        assertThat(otherTenant.contentType()).startsWith("application/problem+json");
        ApiResponse pastTheirMessage =
                SERVICE.api().get("/v1/messages?cursor=ffffffff-ffff-ffff-ffff-ffffffffffff", "client-b");
        pastTheirMessage
                .json()
                .get("items")
                .forEach(item -> assertThat(item.get("tenant").asText()).isEqualTo("globex"));
        assertThat(SERVICE.api()
                        .get("/v1/messages?to=" + UrlJunk.encode(to), "support-1")
                        .json()
                        .get("items"))
                .hasSize(1);
    }

    @Test
    void aClientKeyOnAdminEndpointsIs403() {
        for (Call call : everyEndpoint().subList(5, 9)) {
            ApiResponse r = call.as("client-a");
            assertThat(r.status()).as(call.toString()).isEqualTo(403);
            assertThat(r.contentType()).startsWith("application/problem+json");
            assertThat(r.json().get("status").asInt()).isEqualTo(403);
        }
    }

    @Test
    void staffListTheTenantsThatHoldAClientKeyAndAClientMayNot() {
        for (String staff : List.of("support-1", "admin-1")) {
            ApiResponse r = SERVICE.api().get("/v1/admin/tenants", staff);
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
            // test-config.yml: client keys for acme, globex and suspended; the staff keys' tenant (ops) is not one.
            assertThat(r.json().get("tenants").toString()).isEqualTo("[\"acme\",\"globex\",\"suspended\"]");
        }
        ApiResponse client = SERVICE.api().get("/v1/admin/tenants", "client-a");
        assertThat(client.status()).isEqualTo(403);
        assertThat(client.contentType()).startsWith("application/problem+json");
        assertThat(SERVICE.api().get("/v1/admin/tenants", null).status()).isEqualTo(401);
    }

    @Test
    void aSupportKeyReadsAdminListsButMayNotRedriveOrResolve() {
        assertThat(SERVICE.api().get("/v1/admin/dead", "support-1").status()).isEqualTo(200);
        assertThat(SERVICE.api().get("/v1/admin/parked", "support-1").status()).isEqualTo(200);
        for (Call call : everyEndpoint().subList(7, 9)) {
            ApiResponse r = call.as("support-1");
            assertThat(r.status()).as(call.toString()).isEqualTo(403);
            assertThat(r.contentType()).startsWith("application/problem+json");
        }
        // The same calls pass the role check for an admin: an accepted message cannot be re-driven, there is no parked
        // row 1.
        assertThat(everyEndpoint().get(7).as("admin-1").status()).isEqualTo(409);
        assertThat(everyEndpoint().get(8).as("admin-1").status()).isEqualTo(404);
    }

    @Test
    void aSupportKeyReadsSuppressionListsButOnlyClientAndAdminKeysChangeThem() {
        List<Call> suppressions = everyEndpoint().subList(9, 13);
        for (Call change : suppressions.subList(0, 2)) {
            ApiResponse r = change.as("support-1");
            assertThat(r.status()).as(change.toString()).isEqualTo(403);
            assertThat(r.contentType()).startsWith("application/problem+json");
        }
        for (Call read : suppressions.subList(2, 4)) {
            assertThat(read.as("support-1").status()).as(read.toString()).isEqualTo(200);
        }
        assertThat(suppressions.get(0).as("admin-1").status()).isEqualTo(200);
        assertThat(suppressions.get(1).as("admin-1").status()).isEqualTo(204);
        assertThat(suppressions.get(1).as("admin-1").status())
                .as("no longer listed")
                .isEqualTo(404);
    }

    @Test
    void aSupportKeyReadsTheWebhookButOnlyClientAndAdminKeysChangeIt() {
        List<Call> webhook = everyEndpoint().subList(13, 17);
        for (Call change : webhook.subList(0, 3)) {
            ApiResponse r = change.as("support-1");
            assertThat(r.status()).as(change.toString()).isEqualTo(403);
            assertThat(r.contentType()).startsWith("application/problem+json");
        }
        assertThat(webhook.get(3).as("support-1").status())
                .as("none registered yet")
                .isEqualTo(404);
        assertThat(webhook.get(0).as("admin-1").status()).isEqualTo(200);
        assertThat(webhook.get(3).as("support-1").status()).isEqualTo(200);
        assertThat(webhook.get(1).as("admin-1").status()).isEqualTo(200);
        assertThat(webhook.get(2).as("admin-1").status()).isEqualTo(204);
        assertThat(webhook.get(2).as("admin-1").status())
                .as("no longer registered")
                .isEqualTo(404);
    }

    @Test
    void supportAndAdminKeysMayNotSubmit() {
        for (String key : new String[] {"support-1", "admin-1"}) {
            for (Call call : everyEndpoint().subList(0, 2)) {
                assertThat(call.as(key).status()).as(call + " as " + key).isEqualTo(403);
            }
        }
    }
}
