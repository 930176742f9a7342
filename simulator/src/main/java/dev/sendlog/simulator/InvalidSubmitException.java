package dev.sendlog.simulator;

/** A submit whose body cannot be accepted as it is; answered 400 with the message. */
final class InvalidSubmitException extends Exception {
    InvalidSubmitException(String message) {
        super(message);
    }
}
