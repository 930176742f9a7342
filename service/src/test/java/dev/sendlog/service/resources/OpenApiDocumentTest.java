package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.OpenApiContract;
import dev.sendlog.service.support.ServiceHarness;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The OpenAPI document is served, names exactly the operations the resources have, and its contract check catches
 * an answer that drifted from it (every API test runs that check through ApiClient).
 */
class OpenApiDocumentTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API");

    /** The JAX-RS resources of the application port; the direct (servlet) paths answer the same shapes as these. */
    private static final List<Class<?>> RESOURCES = List.of(
            MessagesResource.class,
            AdminResource.class,
            CallbackResource.class,
            OpenApiResource.class,
            SuppressionsResource.class,
            WebhookResource.class,
            WebhookAdminResource.class);

    @Test
    void theDocumentIsServedWithoutAKeyAsTheJarShipsIt() throws Exception {
        ApiResponse r = SERVICE.api().get("/openapi.yaml", null);

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.contentType()).startsWith("application/yaml");
        try (InputStream in = OpenApiResource.class.getResourceAsStream(OpenApiResource.DOCUMENT)) {
            assertThat(r.raw()).isEqualTo(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        assertThat(r.raw()).startsWith("openapi: 3.1.0");
    }

    @Test
    void everyResourceMethodIsDocumentedAndEveryDocumentedOperationExists() {
        TreeSet<String> code = new TreeSet<>();
        for (Class<?> resource : RESOURCES) {
            String base = resource.getAnnotation(Path.class).value();
            for (Method m : resource.getDeclaredMethods()) {
                String verb = m.isAnnotationPresent(GET.class)
                        ? "get"
                        : m.isAnnotationPresent(POST.class)
                                ? "post"
                                : m.isAnnotationPresent(PUT.class)
                                        ? "put"
                                        : m.isAnnotationPresent(DELETE.class) ? "delete" : null;
                if (verb == null) {
                    continue;
                }
                Path sub = m.getAnnotation(Path.class);
                code.add(verb + " " + join(base, sub == null ? "" : sub.value()));
            }
        }
        TreeSet<String> documented = new TreeSet<>();
        JsonNode paths = OpenApiContract.get().document().path("paths");
        for (Iterator<Map.Entry<String, JsonNode>> it = paths.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            e.getValue().fieldNames().forEachRemaining(verb -> documented.add(verb + " " + e.getKey()));
        }

        assertThat(documented).isEqualTo(code);
    }

    @Test
    void everyOperationDocumentsItsErrorsAsProblemsAndEveryReferenceResolves() {
        JsonNode doc = OpenApiContract.get().document();
        List<String> missing = new ArrayList<>();
        doc.path("paths")
                .fields()
                .forEachRemaining(path -> path.getValue().fields().forEachRemaining(op -> {
                    op.getValue().path("responses").fields().forEachRemaining(response -> {
                        JsonNode r = response.getValue();
                        if (r.has("$ref")
                                && doc.at(r.get("$ref").asText().substring(1)).isMissingNode()) {
                            missing.add(
                                    op.getKey() + " " + path.getKey() + " " + response.getKey() + ": " + r.get("$ref"));
                        }
                        if (response.getKey().startsWith("4")
                                || response.getKey().startsWith("5")) {
                            JsonNode resolved = r.has("$ref")
                                    ? doc.at(r.get("$ref").asText().substring(1))
                                    : r;
                            if (!resolved.path("content").has("application/problem+json")) {
                                missing.add(op.getKey() + " " + path.getKey() + " " + response.getKey()
                                        + " is not a problem");
                            }
                        }
                    });
                }));
        assertThat(missing).isEmpty();
    }

    @Test
    void theContractRefusesAnAnswerThatDriftedFromTheDocument() {
        OpenApiContract contract = OpenApiContract.get();
        URI one = URI.create("http://127.0.0.1/v1/messages/0190c6f0-0000-7000-8000-000000000001");
        Map<String, List<String>> json = Map.of("content-type", List.of("application/json"));
        String kept = "{\"id\":\"0190c6f0-0000-7000-8000-000000000001\",\"tenant\":\"acme\",\"status\":\"SENT\","
                + "\"to\":\"+4915112345678\",\"reference\":null,\"gateway\":\"sim\",\"providerId\":\"p1\",\"attempts\":1,\"segments\":1,"
                + "\"acceptedAt\":\"2026-12-02T10:00:00Z\",\"updatedAt\":\"2026-12-02T10:00:01Z\",\"lastError\":null}";

        assertThat(contract.violations("GET", one, null, null, 200, json, kept)).isEmpty();
        assertThat(contract.violations("GET", one, null, null, 200, json, kept.replace("\"SENT\"", "\"LOST\"")))
                .as("a status the document does not list")
                .isNotEmpty();
        assertThat(contract.violations("GET", one, null, null, 200, json, kept.replace("}", ",\"extra\":1}")))
                .as("a field the document does not list")
                .isNotEmpty();
        assertThat(contract.violations("GET", one, null, null, 418, json, kept))
                .as("a status code the operation does not document")
                .isNotEmpty();
        assertThat(contract.violations(
                        "GET", one, null, null, 404, json, "{\"type\":\"x\",\"title\":\"t\",\"status\":404}"))
                .as("an error must be application/problem+json")
                .isNotEmpty();
        assertThat(
                        contract.violations(
                                "POST",
                                URI.create("http://127.0.0.1/v1/messages"),
                                "application/json",
                                "{\"to\":\"+4915112345678\",\"body\":\"x\"}",
                                202,
                                json,
                                "{\"id\":\"0190c6f0-0000-7000-8000-000000000001\",\"status\":\"ACCEPTED\",\"acceptedAt\":\"2026-12-02T10:00:00Z\"}"))
                .as("a 202 without its Location header")
                .anyMatch(v -> v.contains("Location"));
        assertThat(contract.violations("GET", URI.create("http://127.0.0.1/v1/nothing"), null, null, 200, json, "{}"))
                .as("an operation the document does not have")
                .isNotEmpty();
    }

    private static String join(String base, String sub) {
        String s = (base + "/" + sub).replaceAll("/+", "/");
        return s.length() > 1 && s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }
}
