import type { Messages } from './en.ts';

export const fr: Messages = {
  'common.skip_to_content': 'Aller au contenu principal',
  'common.continue': 'Continuer',
  'common.back': 'Retour',
  'common.change': 'Modifier',
  'common.optional': '(facultatif)',
  'common.error_summary_title': 'Il y a un problème',
  'common.error_prefix': 'Erreur :',
  'common.service_name': 'Dépôt sécurisé de documents',
  'common.test_banner': 'Ceci est une session de test. Rien de ce que vous envoyez ici ne sert à une vraie décision.',
  'common.footer': 'Vos réponses et vos documents sont transmis de façon sécurisée à {org}.',
  'common.language': 'Langue',

  'error.forbidden.title': 'Ce lien ne fonctionne pas',
  'error.forbidden.body': 'Le lien utilisé n’est pas valide. Ouvrez à nouveau le lien reçu, sans le modifier. S’il ne fonctionne toujours pas, demandez un nouveau lien à l’organisme qui vous l’a envoyé.',
  'error.expired.title': 'Ce lien a expiré',
  'error.expired.body': 'Pour votre sécurité, les liens cessent de fonctionner au bout d’un certain temps. Demandez un nouveau lien à l’organisme qui vous l’a envoyé.',
  'error.expired.return': 'Retourner sur le site de {org}',
  'error.not_found.title': 'Page introuvable',
  'error.not_found.body': 'Si vous avez saisi l’adresse, vérifiez-la. Si vous avez suivi un lien, ouvrez à nouveau le lien reçu.',
  'error.server.title': 'Désolé, le service rencontre un problème',
  'error.server.body': 'Réessayez plus tard. Vos réponses et vos fichiers ont été enregistrés.',
  'error.csrf.title': 'Votre page n’était plus à jour',
  'error.csrf.body': 'Nous n’avons pas pu enregistrer votre envoi car la page avait expiré. Revenez en arrière, rechargez la page et réessayez.',
  'error.rate_limited.title': 'Trop de tentatives',
  'error.rate_limited.body': 'Vous avez envoyé beaucoup de modifications en peu de temps. Attendez une minute et réessayez.',
};
