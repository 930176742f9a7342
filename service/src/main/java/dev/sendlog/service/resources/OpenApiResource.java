package dev.sendlog.service.resources;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /openapi.yaml}: the API's OpenAPI document, as shipped in the jar. No key needed: it describes the API,
 * it holds nothing of any tenant. The tests validate every request and response against this same file.
 */
@Path("/openapi.yaml")
public final class OpenApiResource {
    public static final String DOCUMENT = "/openapi/openapi.yaml";
    public static final String MEDIA_TYPE = "application/yaml";

    private final byte[] document;

    public OpenApiResource() {
        try (InputStream in = OpenApiResource.class.getResourceAsStream(DOCUMENT)) {
            if (in == null) {
                throw new IllegalStateException("the jar lacks " + DOCUMENT);
            }
            this.document = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @GET
    @Produces(MEDIA_TYPE + ";charset=utf-8")
    public Response get() {
        return Response.ok(document).header("Cache-Control", "max-age=300").build();
    }
}
