package io.psmr.scheduler.testing;

import io.psmr.scheduler.Command;

/** A command of the tests given directly by its keys, as bytes, and their access. */
public record KeyCommand(byte[][] keys, boolean[] writes) implements Command {

    @Override
    public int keyCount() {
        return keys.length;
    }

    @Override
    public byte[] key(int i) {
        return keys[i];
    }

    @Override
    public boolean writes(int i) {
        return writes[i];
    }
}
