import { z } from "zod";
import { PlanSchema } from "../../contracts/service-types";
import { WorkspaceGrantSchema } from "../auth/permissions";
import { EmailSchema, RoleSchema } from "../auth/users";
import { PasswordSchema } from "../platform/password";

/**
 * The request bodies of the operator routes (worker/routes/admin.ts), apart from the routes, so the
 * OpenAPI document reads them without loading what the routes run (the data-plane migration and the
 * catalog objects it reaches, which only a Worker can load).
 */
export const CreateWorkspaceSchema = z.strictObject({ name: z.string().min(1).max(120), plan: PlanSchema.default("free") });
export const CreateUserSchema = z.strictObject({
  email: EmailSchema,
  name: z.string().trim().min(1).max(120).optional(),
  role: RoleSchema.default("member"),
  password: PasswordSchema,
});
export const UpdateWorkspaceSchema = z.strictObject({ plan: PlanSchema });
export const CreateWorkspaceKeySchema = z.strictObject({
  name: z.string().min(1).max(120),
  permissions: z.array(WorkspaceGrantSchema).min(1).optional(),
});
/** A partial settings object; updateSettings merges it and validates the result against SettingsSchema. */
export const SettingsPatchSchema = z.record(z.string(), z.unknown());
