package dev.sendlog.service.resources;

import dev.sendlog.projections.MessageStatus;
import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.errors.FieldError;
import dev.sendlog.service.log.SearchQuery;
import dev.sendlog.service.log.StorableText;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Query parameters of GET /v1/messages, checked all at once. */
final class SearchParams {
    static final int MAX_LIMIT = 500;
    static final int DEFAULT_LIMIT = 50;

    private SearchParams() {}

    static SearchQuery parse(
            Caller caller,
            String to,
            String reference,
            String status,
            String since,
            String until,
            String limit,
            String cursor,
            String tenant) {
        List<FieldError> errors = new ArrayList<>();
        MessageStatus byStatus = null;
        if (status != null) {
            try {
                byStatus = MessageStatus.valueOf(status);
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError(
                        "status", "must be one of " + java.util.Arrays.toString(MessageStatus.values())));
            }
        }
        Instant sinceAt = instant("since", since, errors);
        Instant untilAt = instant("until", until, errors);
        int n = DEFAULT_LIMIT;
        if (limit != null) {
            try {
                n = Integer.parseInt(limit);
                if (n < 1 || n > MAX_LIMIT) {
                    errors.add(new FieldError("limit", "must be 1 to " + MAX_LIMIT));
                }
            } catch (NumberFormatException e) {
                errors.add(new FieldError("limit", "must be a whole number"));
            }
        }
        UUID before = null;
        if (cursor != null) {
            try {
                before = UUID.fromString(cursor);
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("cursor", "is not a cursor this API returned"));
            }
        }
        text("to", to, errors);
        text("reference", reference, errors);
        text("tenant", tenant, errors);
        String scope = caller.tenant();
        if (caller.role().seesAllTenants()) {
            scope = tenant;
        } else if (tenant != null && !tenant.equals(caller.tenant())) {
            errors.add(new FieldError("tenant", "a client key searches its own tenant only"));
        }
        if (!errors.isEmpty()) {
            throw ApiProblem.badRequest("the search is invalid", errors);
        }
        return new SearchQuery(scope, blankToNull(to), blankToNull(reference), byStatus, sinceAt, untilAt, n, before);
    }

    /** Text PostgreSQL cannot compare (a NUL) is refused here; the query would fail on it. */
    private static void text(String name, String value, List<FieldError> errors) {
        String problem = value == null ? null : StorableText.problem(value);
        if (problem != null) {
            errors.add(new FieldError(name, problem));
        }
    }

    private static Instant instant(String name, String value, List<FieldError> errors) {
        if (value == null) {
            return null;
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            errors.add(new FieldError(name, "must be an RFC 3339 UTC time such as 2026-11-30T09:00:00Z"));
            return null;
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
