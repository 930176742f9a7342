package dev.sendlog.service.errors;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** An RFC 9457 problem detail, the body of every error answer. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, List<FieldError> errors) {
    public static final String MEDIA_TYPE = "application/problem+json";

    public static Problem of(int status, String title, String detail) {
        return new Problem(typeFor(status), title, status, detail, null);
    }

    static String typeFor(int status) {
        return "https://sendlog.dev/problems/" + status;
    }
}
