package dev.sendlog.service.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import dev.sendlog.service.resources.OpenApiResource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The OpenAPI document ({@code openapi.yaml} in the jar) as a contract the API tests keep: every request a test sends
 * through {@link ApiClient} to the application port, and every answer, is checked against it, so the document cannot
 * drift from the code. The schemas are JSON Schema 2020-12 in the OpenAPI 3.1 dialect, validated by networknt's
 * json-schema-validator; the routing (method, path template, status, content type, required headers) is read from the
 * document here.
 *
 * <p>Rules: an answer to a documented operation must have a documented status, its documented content type and a
 * body valid against the schema, and the required headers. A request is held to its schema only when the service
 * accepted it (2xx): the bad-input tests send invalid requests on purpose, and their answers are checked instead.
 * A path the document does not know must be answered 404 or 405 with a problem; {@code /console/} (the support
 * console's static files) is not part of the API.
 */
public final class OpenApiContract {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASE = "https://sendlog.dev/openapi.yaml";
    private static final OpenApiContract INSTANCE = new OpenApiContract(load());

    private final JsonNode document;
    private final List<Route> routes;
    private final SchemaRegistry registry;
    private final Map<String, Schema> schemas = new ConcurrentHashMap<>();

    private record Route(String template, Pattern pattern, int parameters, JsonNode item) {}

    OpenApiContract(JsonNode document) {
        this.document = document;
        // The validator reads the whole document as one schema resource, so a pointer into it (and every $ref in it)
        // resolves as JSON Schema resolves it.
        String text;
        try {
            text = JSON.writeValueAsString(document);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.registry = SchemaRegistry.withDefaultDialect(Dialects.getOpenApi31(), b -> b.schemas(Map.of(BASE, text)));
        List<Route> list = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = document.path("paths").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String template = e.getKey();
            String regex = "^" + Pattern.quote(template).replaceAll("\\{[^}]+}", "\\\\E[^/]+\\\\Q") + "$";
            list.add(new Route(template, Pattern.compile(regex), template.split("\\{", -1).length - 1, e.getValue()));
        }
        // A literal segment wins over a template: /v1/messages/batch is not /v1/messages/{id}.
        list.sort(Comparator.comparingInt(Route::parameters));
        this.routes = List.copyOf(list);
    }

    public static OpenApiContract get() {
        return INSTANCE;
    }

    /** The document as the jar ships it. */
    public static JsonNode load() {
        try (InputStream in = OpenApiContract.class.getResourceAsStream(OpenApiResource.DOCUMENT)) {
            if (in == null) {
                throw new IllegalStateException("no " + OpenApiResource.DOCUMENT + " on the class path");
            }
            return new ObjectMapper(new YAMLFactory()).readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public JsonNode document() {
        return document;
    }

    /** The documented operation for a method and a request path, if any. */
    public Optional<Operation> operation(String method, String path) {
        for (Route r : routes) {
            if (r.pattern().matcher(path).matches()) {
                JsonNode op = r.item().get(method.toLowerCase(Locale.ROOT));
                return op == null ? Optional.empty() : Optional.of(new Operation(r.template(), method, op));
            }
        }
        return Optional.empty();
    }

    public record Operation(String template, String method, JsonNode node) {
        String pointer() {
            return "#/paths/" + escape(template) + "/" + method.toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Checks one exchange; returns the violations (empty when it keeps the contract). {@code responseHeaders} names are
     * matched without regard to case.
     */
    public List<String> violations(
            String method,
            URI uri,
            String requestContentType,
            String requestBody,
            int status,
            Map<String, List<String>> responseHeaders,
            String responseBody) {
        List<String> out = new ArrayList<>();
        String path = uri.getPath();
        if (path.startsWith("/console/") || path.equals("/console")) {
            return out;
        }
        String where = method + " " + path + " -> " + status;
        Optional<Operation> found = operation(method, path);
        String responseType = header(responseHeaders, "Content-Type")
                .map(OpenApiContract::mediaType)
                .orElse("");
        if (found.isEmpty()) {
            if (status != 404 && status != 405) {
                out.add(where + ": the document has no such operation, and the answer is not 404 or 405");
            } else if (!responseType.equals("application/problem+json")) {
                out.add(where + ": an unknown path must be answered with a problem, not " + responseType);
            }
            return out;
        }
        Operation op = found.get();
        String responsePointer = op.pointer() + "/responses/" + status;
        JsonNode response = op.node().path("responses").get(Integer.toString(status));
        if (response == null) {
            out.add(where + ": status " + status + " is not documented for " + op.method() + " " + op.template());
            return out;
        }
        Resolved resolved = resolve(response, responsePointer);
        for (Iterator<Map.Entry<String, JsonNode>> it =
                        resolved.node().path("headers").fields();
                it.hasNext(); ) {
            Map.Entry<String, JsonNode> h = it.next();
            Resolved header = resolve(h.getValue(), resolved.pointer() + "/headers/" + escape(h.getKey()));
            if (header.node().path("required").asBoolean(false)
                    && header(responseHeaders, h.getKey()).isEmpty()) {
                out.add(where + ": header " + h.getKey() + " is required");
            }
        }
        JsonNode content = resolved.node().get("content");
        if (content != null && !content.isEmpty()) {
            if (!content.has(responseType)) {
                out.add(where + ": content type " + responseType + " is not one of " + names(content));
            } else if (responseType.endsWith("json")) {
                out.addAll(validate(
                        resolved.pointer() + "/content/" + escape(responseType) + "/schema",
                        responseBody,
                        where + " response"));
            }
        }
        if (status / 100 == 2 && op.node().has("requestBody")) {
            Resolved body = resolve(op.node().get("requestBody"), op.pointer() + "/requestBody");
            JsonNode types = body.node().path("content");
            String type = requestContentType == null ? "" : mediaType(requestContentType);
            if (types.has(type) && type.endsWith("json")) {
                out.addAll(validate(
                        body.pointer() + "/content/" + escape(type) + "/schema", requestBody, where + " request"));
            } else if (!types.has(type) && !types.has("*/*")) {
                out.add(where + ": the service accepted a " + type + " body the document does not list: "
                        + names(types));
            }
        }
        return out;
    }

    private List<String> validate(String pointer, String body, String what) {
        List<String> out = new ArrayList<>();
        JsonNode instance;
        try {
            instance = body == null || body.isEmpty() ? null : JSON.readTree(body);
        } catch (IOException e) {
            out.add(what + ": not JSON: " + e.getMessage());
            return out;
        }
        if (instance == null) {
            out.add(what + ": no body, the document says one");
            return out;
        }
        Schema schema = schemas.computeIfAbsent(pointer, p -> registry.getSchema(SchemaLocation.of(BASE + p)));
        for (Error e : schema.validate(instance)) {
            out.add(what + " breaks " + pointer + ": " + e.getMessage());
        }
        return out;
    }

    private record Resolved(JsonNode node, String pointer) {}

    /** Follows a {@code $ref} inside the document (responses, headers, request bodies, parameters). */
    private Resolved resolve(JsonNode node, String pointer) {
        for (int i = 0; i < 8 && node.has("$ref"); i++) {
            String ref = node.get("$ref").asText();
            if (!ref.startsWith("#/")) {
                throw new IllegalStateException("only local references are supported: " + ref);
            }
            pointer = ref;
            node = document.at(ref.substring(1));
            if (node.isMissingNode()) {
                throw new IllegalStateException("the document's " + ref + " does not exist");
            }
        }
        return new Resolved(node, pointer);
    }

    private static Optional<String> header(Map<String, List<String>> headers, String name) {
        return headers.entrySet().stream()
                .filter(e -> e.getKey().equalsIgnoreCase(name))
                .flatMap(e -> e.getValue().stream())
                .findFirst();
    }

    private static String mediaType(String contentType) {
        int semi = contentType.indexOf(';');
        return (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** JSON pointer escaping of one reference token (RFC 6901). */
    static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }
}
