import { electronicFormatIBAN, isValidIBAN } from "ibantools";
import type { CodeWindow } from "./code-runs";

/** An IBAN: its country's length and BBAN format and the ISO 13616 mod-97 check, as ibantools checks them. */
export const isIban = (w: CodeWindow): boolean =>
  /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(w.compact) && isValidIBAN(electronicFormatIBAN(w.compact) ?? "");
