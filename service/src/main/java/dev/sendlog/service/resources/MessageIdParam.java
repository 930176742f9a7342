package dev.sendlog.service.resources;

import dev.sendlog.service.errors.ApiProblem;
import java.util.UUID;

/** A message id from a path: one that is not a UUID names no message, so it is answered 404 like a missing one. */
final class MessageIdParam {
    private MessageIdParam() {}

    static UUID parse(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ApiProblem.notFound("no message " + id);
        }
    }
}
