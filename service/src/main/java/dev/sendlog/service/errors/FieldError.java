package dev.sendlog.service.errors;

import com.fasterxml.jackson.annotation.JsonInclude;

/** One field's problem: {@code field} is a JSON pointer-like path such as {@code messages[3].to}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FieldError(String field, String problem) {}
