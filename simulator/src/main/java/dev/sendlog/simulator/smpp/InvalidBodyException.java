package dev.sendlog.simulator.smpp;

/** A submit_sm body the simulator cannot decode; carries the SMPP command_status to answer it with. */
final class InvalidBodyException extends Exception {
    private final int commandStatus;

    InvalidBodyException(int commandStatus, String message) {
        super(message);
        this.commandStatus = commandStatus;
    }

    int commandStatus() {
        return commandStatus;
    }
}
